import { connect, type Socket } from 'node:net';
import { kernelBufferBytes, liveMemory, MiB, mib, spooledAnswers } from './support/answer-memory';
import { fullCallDocument, ingestOk, internalEnv } from './support/call-documents';
import { createFirm, type TestFirm } from './support/factories';
import { waitFor } from './support/receiver';
import { startTestApp, type TestApp } from './support/test-app';

const STALLED = 10;
/**
 * The idle bound of the app the stalled readers are measured on: longer than any test here, so what a stalled
 * reader holds is measured while it stalls, however long a busy machine takes to prepare ten answers. (With one
 * 15 s bound for everything, a loaded machine cut readers whose answers were still being prepared, and the wait for
 * all ten to be under way never ended.) The cut itself is tested on an app of its own, below.
 */
const PATIENT_IDLE_MS = 600_000;

/** Alternating speakers, so no two turns join; intake with the receptionist, then the last 1,000 turns with staff. */
const turnAt = (i: number, total: number) => {
  const intake = i < total - 1_000;
  return {
    speaker: i % 2 ? 'caller' : intake ? 'receptionist' : 'staff',
    speaker_name: i % 2 || intake ? null : 'Dana Reyes',
    segment: intake ? 'intake' : 'conversation',
    text: `turn ${i}: ${'é"\\ and then \u2028 said 😀 '.repeat(24)}`,
    start_s: i * 1.25,
  };
};

/**
 * 10,000 turns (about 7.8 MiB of JSON, against 4.1 MiB of loopback buffers on Linux's defaults), or more where the
 * buffers are larger: a stalled answer must leave at least 2 MiB in the server process, or the kernel would take
 * it whole and no reader would stall (each test below then times out waiting for its answers to be under way).
 */
const TURNS = Math.max(10_000, Math.ceil((kernelBufferBytes() + 2 * MiB) / Buffer.byteLength(JSON.stringify(turnAt(5_000, 10_000)))));

/**
 * Memory ten stalled readers may keep alive (heap and buffers, after full
 * collections): spooled, each holds a read chunk or two, about 2 MiB for ten;
 * serialised in memory as before, each held its answer, 134 MiB for ten.
 */
const STALLED_LIVE_BUDGET = 16 * MiB;
/**
 * How much the process's resident size may grow meanwhile, the reads
 * themselves included: 48-100 MiB measured spooled, 236-388 MiB before.
 */
const STALLED_RSS_BUDGET = 160 * MiB;

/** What JSON.stringify made of the answer before it was streamed: the bytes must not change. */
function expectedAnswer(callId: string, start: number, count: number, total: number, turns: ReturnType<typeof turnAt>[]) {
  const hasMore = start + count < total;
  return JSON.stringify({
    call_id: callId,
    turn_count: total,
    start_turn: start,
    has_more: hasMore,
    next_start_turn: hasMore ? start + count : null,
    covers: ['intake', 'conversation'],
    conversation_status: 'partial',
    connected_name: null,
    briefings: [],
    notice: 'Part of the conversation was not transcribed.',
    untrusted: { turns: turns.slice(0, count) },
  });
}

/** An app whose own end of each connection is kept, to see answers under way and connections closed. */
async function watchedApp(env: Record<string, string>, databaseUrl?: string): Promise<{ t: TestApp; sockets: Socket[] }> {
  // Ten of one key's readers at once: the per-key cap on requests under way (2) would hold most of them in its line
  // while the first answers are made, and this file judges what the answers under way cost.
  const t = await startTestApp({ databaseUrl, env: { ...internalEnv, CONCURRENT_REQUESTS_PER_KEY: '100', ...env } });
  const sockets: Socket[] = [];
  t.app.getHttpServer().on('connection', (socket: Socket) => sockets.push(socket));
  return { t, sockets };
}

/**
 * An answer is under way and stalled once the server holds part of it (the kernel's buffers are full); it did not
 * get there if its connection was closed first.
 */
const underWay = (s: Socket) => s.writableLength > 0;

describe('stalled readers of a large unpaged transcript', () => {
  let t: TestApp;
  let serverSockets: Socket[];
  let firm: TestFirm;
  const callId = 'call_big_transcript';
  const path = `/v1/calls/${callId}/transcript`;
  const turns = Array.from({ length: TURNS }, (_, i) => turnAt(i, TURNS));

  beforeAll(async () => {
    ({ t, sockets: serverSockets } = await watchedApp({ HTTP_IDLE_TIMEOUT_MS: String(PATIENT_IDLE_MS) }));
    firm = await createFirm(t.app);
    const transcript = {
      conversation_status: 'partial',
      connected_name: null,
      briefings: [],
      notice: 'Part of the conversation was not transcribed.',
    };
    await ingestOk(t, firm.orgId, callId, { ...fullCallDocument(), transcript: { ...transcript, turns } });
  }, 120_000);
  afterAll(() => t?.close());

  /**
   * Clients that send the request and never read: the kernel's buffers fill (about 4 MiB of each answer on
   * Linux's loopback defaults), then the server's, where the rest of the answer waits.
   */
  async function stallReaders(app: { t: TestApp; sockets: Socket[] }, n: number): Promise<{ clients: Socket[]; server: Socket[] }> {
    const known = app.sockets.length;
    const clients = Array.from({ length: n }, () => {
      const socket = connect({ host: '127.0.0.1', port: Number(new URL(app.t.baseUrl).port) });
      socket.pause();
      socket.on('error', () => undefined);
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${firm.keys.read}\r\n\r\n`);
      return socket;
    });
    await waitFor(() => app.sockets.length >= known + n, 'the stalled readers to connect');
    return { clients, server: app.sockets.slice(known) };
  }

  it('answers every turn with the bytes and headers JSON.stringify gave, Content-Length included', async () => {
    // Uncompressed, as a client that asks for no encoding gets it (a compressed answer has no Content-Length).
    const identity = { 'accept-encoding': 'identity' };
    const whole = await t.get(path, { key: firm.keys.read, headers: identity });
    expect(whole.status).toBe(200);
    expect(whole.text).toBe(expectedAnswer(callId, 0, TURNS, TURNS, turns));
    expect(Buffer.byteLength(whole.text)).toBeGreaterThan(kernelBufferBytes() + 2 * MiB);
    expect(whole.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(whole.headers.get('content-length')).toBe(String(Buffer.byteLength(whole.text)));
    expect(whole.headers.get('transfer-encoding')).toBeNull();
    // The same headers as any other keyed JSON read, such as the call's own.
    const call = await t.get(`/v1/calls/${callId}`, { key: firm.keys.read, headers: identity });
    expect([...whole.headers.keys()].sort()).toEqual([...call.headers.keys()].sort());
    const page = await t.get(path, { key: firm.keys.read, query: { start_turn: TURNS - 300, limit: 200 } });
    expect(page.text).toBe(expectedAnswer(callId, TURNS - 300, 200, TURNS, turns.slice(TURNS - 300)));
    const tail = await t.get(path, { key: firm.keys.read, headers: identity, query: { segment: 'conversation', start_turn: 400 } });
    const conversation = turns.slice(TURNS - 1_000);
    expect(tail.text).toBe(expectedAnswer(callId, 400, 600, 1_000, conversation.slice(400)));
    expect(tail.headers.get('content-length')).toBe(String(Buffer.byteLength(tail.text)));
  }, 60_000);

  it('holds little memory and no database connection for ten stalled readers, and frees each answer when its reader goes away', async () => {
    const before = await liveMemory();
    const { clients, server } = await stallReaders({ t, sockets: serverSockets }, STALLED);
    // Ten answers prepared at once: seconds on a quiet machine, minutes at load 25 (a bound for a hang).
    await waitFor(() => server.every(underWay), 'every stalled answer to be under way', 240_000);
    const stalled = await liveMemory();
    const grew = { live_mib: mib(stalled.live - before.live), rss_mib: mib(stalled.rss - before.rss) };
    const within = { live: stalled.live - before.live < STALLED_LIVE_BUDGET, rss: stalled.rss - before.rss < STALLED_RSS_BUDGET };
    expect({ ...grew, within }).toEqual({ ...grew, within: { live: true, rss: true } });
    expect(spooledAnswers(t)).toBe(STALLED);
    // No transaction is open for them: the snapshot was read and serialised before the first byte went out.
    const inTransaction = () =>
      t.sql(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`,
      );
    await waitFor(async () => (await inTransaction())[0].n === 0, 'no open transaction while ten readers stall');
    const asked = Date.now();
    const other = await t.get(path, { key: firm.keys.read, query: { limit: 5 } });
    expect({ status: other.status, prompt: Date.now() - asked < 10_000 }).toEqual({ status: 200, prompt: true });
    // Still stalled (nothing cut them), until their readers go away: then each spooled answer is closed at once.
    expect(server.filter((s) => s.destroyed)).toHaveLength(0);
    for (const client of clients) client.destroy();
    await waitFor(() => spooledAnswers(t) === 0, 'the spooled answers of readers that went away to be closed');
    const after = await liveMemory();
    expect(mib(after.live - before.live)).toBeLessThan(8);
  }, 300_000);

  it('cuts a stalled reader after HTTP_IDLE_TIMEOUT_MS without progress, and closes its spooled answer', async () => {
    // The idle bound runs from the request on, while the answer is prepared, so it is set from how long one whole read
    // takes on this machine now: a bound far shorter than that would cut the reader before its answer was under way,
    // which proves nothing about stalled readers. If the machine slowed down that much since, it is tried again
    // with a bound four times as long (twice at most). The read is timed as the server gives it, without the
    // test's own check of the answer against the document (as long again, and none of the server's work), and
    // uncompressed as the stalled readers get it.
    const asked = Date.now();
    const headers = { authorization: `Bearer ${firm.keys.read}`, 'accept-encoding': 'identity' };
    const read = await fetch(`${t.baseUrl}${path}`, { headers });
    expect({ status: read.status, bytes: (await read.arrayBuffer()).byteLength > 2 * MiB }).toEqual({ status: 200, bytes: true });
    const readMs = Date.now() - asked;
    let idleMs = Math.min(60_000, Math.max(2_000, 3 * readMs));
    const cutEarly: number[] = [];
    for (;;) {
      const short = await watchedApp({ HTTP_IDLE_TIMEOUT_MS: String(idleMs) }, t.databaseUrl);
      try {
        const {
          server: [reader],
        } = await stallReaders(short, 1);
        await waitFor(() => underWay(reader) || reader.destroyed, 'the stalled answer to be under way or cut', 4 * idleMs + 60_000);
        if (!underWay(reader)) {
          cutEarly.push(idleMs);
          if (cutEarly.length === 3) throw new Error(`cut before its answer was under way with idle bounds of ${cutEarly.join(', ')} ms`);
          idleMs *= 4;
          continue;
        }
        const stalledAt = Date.now();
        // Node gives a pending write that moved since it was queued one more idle period: the cut comes one to two
        // periods after the last progress (and not at once: half a period is left for a late poll on a busy machine).
        await waitFor(() => reader.destroyed, 'the server to cut the stalled reader', 2 * idleMs + 30_000);
        console.log(`idle bound ${idleMs} ms (3 × a whole read of ${readMs} ms): cut ${Date.now() - stalledAt} ms after it stalled`);
        expect(Date.now() - stalledAt).toBeGreaterThanOrEqual(idleMs / 2);
        await waitFor(() => spooledAnswers(short.t) === 0, 'its spooled answer to be closed');
        return;
      } finally {
        await short.t.close();
      }
    }
  }, 300_000);

  /**
   * Three readers: each answer is prepared in full after its reader left, so each one more costs a whole preparation
   * of CPU and shows nothing one does not; three at once still share the server as the ten above do.
   */
  const GONE = 3;
  it('frees the answer of a reader that went away before it was ready', async () => {
    const reads = async () =>
      (await t.sql(`SELECT count(*)::int AS n FROM audit_log WHERE org_id = $1 AND action = 'call.transcript_read'`, [firm.orgId]))[0].n;
    const readsBefore = await reads();
    const known = serverSockets.length;
    const readers = Array.from({ length: GONE }, () => {
      const socket = connect({ host: '127.0.0.1', port: Number(new URL(t.baseUrl).port) });
      socket.on('error', () => undefined);
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${firm.keys.read}\r\n\r\n`);
      return socket;
    });
    // They go away once the server has read their requests: gone any sooner (a loaded machine reads late), the
    // connection resets before the request is read and there is no read to free.
    await waitFor(
      () => serverSockets.length >= known + GONE && serverSockets.slice(known).every((s) => s.bytesRead > 0),
      'the server to have read the requests',
    );
    for (const socket of readers) socket.destroy();
    // Each read still runs to its end (it is audited), then its answer meets a closed connection.
    await waitFor(async () => (await reads()) >= readsBefore + GONE, 'the reads to finish', 240_000);
    await waitFor(() => serverSockets.slice(known).every((s) => s.destroyed), 'their connections to close');
    await waitFor(() => spooledAnswers(t) === 0, 'no spooled answer left open');
  }, 300_000);
});
