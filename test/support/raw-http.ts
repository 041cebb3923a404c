import { connect } from 'node:net';
import { readByServer } from './tcp-queues';

/**
 * One HTTP/1.1 exchange written byte for byte over a plain socket, so a test
 * can send what fetch() refuses to: invalid UTF-8 and bad percent-encoding in
 * the target, repeated or non-ASCII headers, any body with any content type.
 */
export interface RawRequest {
  method: string;
  /** The request target as bytes (a latin1 string: one character per byte). */
  target: string;
  /** Header lines in order; values are latin1 byte strings, so a name may repeat. */
  headers: [string, string][];
  body?: Buffer;
}

export interface RawResult {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** The request as the bytes that go on the wire (Content-Length added for a body, Connection: close always). */
export function encodeRaw(r: RawRequest): Buffer {
  const lines = [`${r.method} ${r.target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', ...r.headers.map(([n, v]) => `${n}: ${v}`)];
  if (r.body) lines.push(`Content-Length: ${r.body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), r.body ?? Buffer.alloc(0)]);
}

/** Sends one request and reads the answer until the server closes; a silent server fails after `timeoutMs`. */
export function rawRequest(baseUrl: string, r: RawRequest, timeoutMs = 15_000): Promise<RawResult> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(encodeRaw(r)));
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no complete answer within ${timeoutMs} ms`)));
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // The server may close (reset) while a large body is still being written; what it answered before counts.
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') return;
      reject(err);
    });
    socket.on('close', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks), r.method));
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  });
}

function parseResponse(bytes: Buffer, method: string): RawResult {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no HTTP answer (${bytes.length} bytes: ${JSON.stringify(bytes.toString('latin1').slice(0, 80))})`);
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  if (!Number.isInteger(status)) throw new Error(`not an HTTP status line: ${JSON.stringify(statusLine)}`);
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  let raw = bytes.subarray(end + 4);
  if (method === 'HEAD') raw = Buffer.alloc(0);
  else if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) raw = dechunk(raw);
  const text = raw.toString('utf8');
  let body: unknown = text;
  if ((headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text);
  return { status, headers, body, text };
}

function dechunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) throw new Error('truncated chunked body');
    const size = parseInt(raw.subarray(at, eol).toString('latin1'), 16);
    if (!size) return Buffer.concat(parts);
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/** Where the answer starting at `from` ends: after its Content-Length bytes or its last chunk (no body: after the head). */
function answerEnd(bytes: Buffer, from: number, method: string): number {
  const head = bytes.indexOf('\r\n\r\n', from);
  if (head < 0) return bytes.length;
  // An answer to HEAD has headers only, whatever its Content-Length says.
  if (method === 'HEAD') return head + 4;
  const text = bytes.subarray(from, head).toString('latin1');
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(text);
  if (length) return head + 4 + Number(length[1]);
  if (!/\r\ntransfer-encoding:\s*chunked/i.test(text)) return head + 4;
  let at = head + 4;
  for (;;) {
    const eol = bytes.indexOf('\r\n', at);
    if (eol < 0) return bytes.length;
    const size = parseInt(bytes.subarray(at, eol).toString('latin1'), 16);
    at = eol + 2 + size + 2;
    if (!size) return Math.min(at, bytes.length);
  }
}

/** A kept-alive connection: write requests on it one after another (pipelined), read every answer once the server closes it. */
export interface RawConnection {
  /** `method` is the request's, so its answer is read as the server sends it (no body for HEAD). */
  write(bytes: string, method?: string): void;
  /** Each answer in order, once the server has closed the connection. */
  answers: Promise<RawResult[]>;
  /** True once the server process has read every byte written so far (not necessarily answered it). */
  readByServer(): boolean;
}

export function rawConnection(baseUrl: string, timeoutMs = 30_000): RawConnection {
  const { port } = new URL(baseUrl);
  const socket = connect(Number(port), '127.0.0.1');
  const chunks: Buffer[] = [];
  const methods: string[] = [];
  socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`not closed by the server within ${timeoutMs} ms`)));
  socket.on('data', (d: Buffer) => chunks.push(d));
  const answers = new Promise<RawResult[]>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('close', () => {
      const bytes = Buffer.concat(chunks);
      const out: RawResult[] = [];
      for (let at = 0; at < bytes.length;) {
        const method = methods[out.length] ?? 'GET';
        const end = answerEnd(bytes, at, method);
        out.push(parseResponse(bytes.subarray(at, end), method));
        at = end;
      }
      resolve(out);
    });
  });
  return {
    write: (bytes, method = 'GET') => {
      methods.push(method);
      socket.write(bytes, 'latin1');
    },
    answers,
    readByServer: () => socket.writableLength === 0 && !!socket.localPort && readByServer(socket.localPort, Number(port)),
  };
}
