import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, openSync, readSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { request, type IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { once } from 'node:events';
import v8 from 'node:v8';
import vm from 'node:vm';
import { checkExchange, toHeaders } from './support/conformance';
import { createFirm, type TestFirm } from './support/factories';
import { insertCall, tempDataDir, uploadPath } from './support/recordings';
import { RECORDING_STORES, startStore, type StoreUnderTest } from './support/recording-stores';
import { startTestApp, TEST_INTERNAL_TOKEN, type TestApp } from './support/test-app';

const MiB = 1024 * 1024;
const SIZE = 100 * MiB;
/**
 * Buffers and heap in use may grow by at most this while 100 MB go through
 * the server and back (upload and download both run in this process).
 * Buffering the file would show as ~100 MB; streaming stays near 0-12 MB.
 */
// Streaming measures 0-12 MiB on a quiet machine, up to ~50 under two parallel test workers (buffers outlive the
// minor collections) and 66 on S3 with two suites at once (load 11 to 13); buffering the 100 MB file shows 100-200 MiB,
// and an upload held whole is at 96 MiB or more by its third sample.
const LIVE_BUDGET = 80 * MiB;
/**
 * The process's resident size (allocator slack included) stays under the file size too. Streaming stayed under 64
 * MiB in the full runs before, and grew it by 67 MiB on S3 at load 10 to 15 (two suites at once, 23 MiB of buffers
 * held); buffering the file holds 100 MiB of buffers at least, which the buffer budget above catches first.
 */
const RSS_BUDGET = 80 * MiB;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as (opts?: { type: 'major' | 'minor' }) => void;

/**
 * Peak memory growth over a transfer, sampled every few MB of data moved.
 * Each sample first runs two young-generation collections (a few ms; a full
 * collection takes hundreds of ms here and would slow the transfer to a
 * crawl), so it sees chunks still in use, not chunks that are garbage but
 * not yet freed.
 */
class MemoryMeter {
  private readonly start: NodeJS.MemoryUsage;
  private moved = 0;
  private nextSample = SAMPLE_EVERY;
  readonly peak = { rss: 0, arrayBuffers: 0, heap: 0, samples: 0 };

  constructor() {
    gc();
    this.start = process.memoryUsage();
  }

  /** Call with each chunk's size as data moves. */
  progress(bytes: number): void {
    this.moved += bytes;
    if (this.moved >= this.nextSample) {
      this.nextSample += SAMPLE_EVERY;
      this.sample();
    }
  }

  sample(): void {
    // A full collection: V8 lets dead external buffers pile up to about 64 MiB before it collects them by itself,
    // so without one a loaded run counted garbage as held memory (74.7 MiB on S3, 25 MiB when quiet).
    gc();
    const m = process.memoryUsage();
    this.peak.rss = Math.max(this.peak.rss, m.rss - this.start.rss);
    this.peak.arrayBuffers = Math.max(this.peak.arrayBuffers, m.arrayBuffers - this.start.arrayBuffers);
    this.peak.heap = Math.max(this.peak.heap, m.heapUsed - this.start.heapUsed);
    this.peak.samples++;
  }
}
/**
 * Each sample is a full collection (hundreds of ms in a Jest worker's heap): one every 32 MiB moved, four a transfer
 * (there were seven at 16 MiB, for no more power). Buffering shows whatever the sampling rate: an upload held whole
 * grows with the bytes moved and is over the budget by the sample at 96 MiB (and the last, at the end); a download
 * read whole before it is sent is held from the first byte to the last, so the sample at 32 MiB sees it.
 * Streaming stays at a chunk or two between any two samples.
 */
const SAMPLE_EVERY = 32 * MiB;
/** Samples a transfer of SIZE must have taken: one per SAMPLE_EVERY moved (100 MiB: 3), and the last one. */
const MIN_SAMPLES = Math.floor(SIZE / SAMPLE_EVERY);

/** One assertion that, when it fails, shows every figure (MiB) and which budget was exceeded. */
function expectBounded(meter: MemoryMeter): void {
  const { rss, arrayBuffers, heap, samples } = meter.peak;
  const over = [
    ...(arrayBuffers >= LIVE_BUDGET ? ['arrayBuffers'] : []),
    ...(heap >= LIVE_BUDGET ? ['heap'] : []),
    ...(rss >= RSS_BUDGET ? ['rss'] : []),
    ...(samples < MIN_SAMPLES ? ['too few samples'] : []),
  ];
  const mib = (n: number) => Math.round((n / MiB) * 10) / 10;
  const peak_mib = { arrayBuffers: mib(arrayBuffers), heap: mib(heap), rss: mib(rss) };
  expect({ peak_mib, samples, over }).toEqual({ peak_mib, samples, over: [] });
}

/** Reads a response as a stream: counts and hashes it, keeping nothing. */
async function drain(body: AsyncIterable<Buffer>, meter: MemoryMeter): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    hash.update(chunk);
    meter.progress(chunk.length);
  }
  return { bytes, sha256: hash.digest('hex') };
}

describe.each(RECORDING_STORES)('a 100 MB recording (%s store)', (kind) => {
  const data = tempDataDir();
  let store: StoreUnderTest;
  const file = join(data.dir, 'big.ogg');
  let fileSha = '';
  let t: TestApp;
  let firm: TestFirm;
  const callId = 'call_large_recording';

  beforeAll(async () => {
    // An Ogg-looking 100 MB file: "OggS", then 1 MiB blocks that differ from each other.
    const block = randomBytes(MiB);
    const hash = createHash('sha256');
    const out = createWriteStream(file);
    for (let i = 0; i < SIZE / MiB; i++) {
      const chunk = Buffer.from(block);
      if (i === 0) chunk.write('OggS', 0, 'latin1');
      chunk.writeUInt32BE(i, 8);
      hash.update(chunk);
      if (!out.write(chunk)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    fileSha = hash.digest('hex');
    store = await startStore(kind);
    t = await startTestApp({ env: { ...store.env, INTERNAL_API_TOKEN: TEST_INTERNAL_TOKEN } });
    firm = await createFirm(t.app);
    await insertCall(t, firm.orgId, callId);
  });
  afterAll(async () => {
    await t?.close();
    await store?.close();
    data.cleanup();
  });

  /** The upload, done once whichever test needs the stored recording first (tests run in any order). */
  let uploading: Promise<{ status: number | undefined; text: string; meter: MemoryMeter }> | undefined;
  const upload = () => (uploading ??= uploadOnce());

  async function uploadOnce() {
    const meter = new MemoryMeter();
    // node:http so the client side streams with backpressure too (chunked: no Content-Length). An /internal
    // route: outside the public document, so nothing to check it against.
    const req = request(new URL(uploadPath(firm.orgId, callId), t.baseUrl), {
      method: 'PUT',
      headers: { authorization: `Bearer ${TEST_INTERNAL_TOKEN}`, 'content-type': 'audio/ogg' },
    });
    const response = once(req, 'response') as Promise<[IncomingMessage]>;
    const source = createReadStream(file);
    source.on('data', (chunk) => meter.progress(chunk.length));
    await pipeline(source, req);
    const [res] = await response;
    let text = '';
    for await (const chunk of res) text += chunk;
    meter.sample();
    return { status: res.statusCode, text, meter };
  }

  it('uploads as a stream with bounded memory', async () => {
    const { status, text, meter } = await upload();
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ size_bytes: SIZE, sha256: fileSha, has_recording: true });
    expectBounded(meter);
    expect(await store.objects()).toHaveLength(1);
  });

  it('streams back whole with bounded memory, byte for byte', async () => {
    await upload();
    const meter = new MemoryMeter();
    // node:http reads with backpressure (fetch's body stream may run ahead of the reader and blur the measure).
    const path = `/v1/calls/${callId}/recording`;
    const req = request(new URL(path, t.baseUrl), { headers: { authorization: `Bearer ${firm.keys.read}` } });
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    expect(res.statusCode).toBe(200);
    // Status and headers checked against the document; the audio body is left to drain() below.
    await checkExchange(t.baseUrl, 'GET', path, { status: 200, headers: toHeaders(res.headers), body: '', text: '' });
    expect(res.headers['content-length']).toBe(String(SIZE));
    expect(await drain(res, meter)).toEqual({ bytes: SIZE, sha256: fileSha });
    meter.sample();
    expectBounded(meter);
  });

  it('serves a range from the middle through a recording link', async () => {
    await upload();
    const link = await t.request('POST', `/v1/calls/${callId}/recording-link`, { key: firm.keys.read });
    expect(link.status).toBe(201);
    const path = new URL(link.body.url as string).pathname;
    const start = 50 * MiB - 10;
    const end = start + 2 * MiB;
    const res = await t.check('GET', path, await fetch(new URL(path, t.baseUrl), { headers: { range: `bytes=${start}-${end}` } }));
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${SIZE}`);
    const got = Buffer.from(await res.arrayBuffer());
    const expected = Buffer.alloc(end - start + 1);
    const fd = openSync(file, 'r');
    try {
      readSync(fd, expected, 0, expected.length, start);
    } finally {
      closeSync(fd);
    }
    expect(got.equals(expected)).toBe(true);
  });
});
