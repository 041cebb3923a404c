// Sends request bodies the way an integrator's Node program does, in a process of its own (in the test's own process
// the server and the client share one event loop, which hides the race between the server's close and the client's
// writes). Reads the exchanges from the JSON argument, prints one JSON line per exchange on stdout:
// { status, connection, code, error }, error being what the client library raised (null when it raised nothing).
//   node body-clients.mjs '[{"client":"fetch"|"http","method":"PATCH","url":"...","headers":{},"size":8388608,"chunked":false,"fill":"a"}]'
import http from 'node:http';

const CHUNK = 64 * 1024;

/** The body in 64 KiB pieces: what a client streaming a file sends. */
function* pieces(size, fill) {
  const piece = Buffer.alloc(CHUNK, fill);
  for (let at = 0; at < size; at += CHUNK) yield piece.subarray(0, Math.min(CHUNK, size - at));
}

async function viaFetch(x) {
  const body = x.chunked
    ? new ReadableStream({
        start(controller) {
          for (const p of pieces(x.size, x.fill)) controller.enqueue(new Uint8Array(p));
          controller.close();
        },
      })
    : Buffer.alloc(x.size, x.fill);
  try {
    const res = await fetch(x.url, { method: x.method, headers: x.headers, body, duplex: 'half' });
    const text = await res.text();
    return { status: res.status, connection: res.headers.get('connection'), code: codeOf(text), error: null };
  } catch (e) {
    return { status: 0, connection: null, code: null, error: String(e.cause?.code ?? e.cause ?? e) };
  }
}

/** node:http: the answer, and any error the request raised before it closed (an EPIPE after the answer counts). */
function viaHttp(x) {
  return new Promise((resolve) => {
    const headers = x.chunked ? x.headers : { ...x.headers, 'content-length': String(x.size) };
    let answer = { status: 0, connection: null, code: null };
    let error = null;
    const req = http.request(x.url, { method: x.method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => (answer = { status: res.statusCode, connection: res.headers.connection ?? null, code: codeOf(text) }));
      res.on('error', (e) => (error ??= String(e.code ?? e)));
    });
    req.on('error', (e) => (error ??= String(e.code ?? e)));
    req.on('close', () => resolve({ ...answer, error }));
    (async () => {
      for (const p of pieces(x.size, x.fill)) {
        if (req.destroyed) return;
        if (!req.write(p)) await new Promise((r) => req.once('drain', r).once('close', r));
      }
      req.end();
    })();
  });
}

function codeOf(text) {
  try {
    return JSON.parse(text).code ?? null;
  } catch {
    return null;
  }
}

for (const x of JSON.parse(process.argv[2])) {
  const result = x.client === 'fetch' ? await viaFetch(x) : await viaHttp(x);
  process.stdout.write(JSON.stringify(result) + '\n');
}
