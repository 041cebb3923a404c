import { readdirSync, readlinkSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { fullCallDocument, ingestOk, internalEnv } from './support/call-documents';
import { createFirm, type TestFirm } from './support/factories';
import { waitFor } from './support/receiver';
import { startTestApp, type TestApp } from './support/test-app';

const MiB = 1024 * 1024;
const TURNS = 10_000;
const STALLED = 10;
/** Long enough to measure ten stalled readers on a busy machine, short enough to watch the server cut them. */
const IDLE_MS = 15_000;
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

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Heap and buffers in use, after full collections (buffers are freed off the main thread, hence the pause). */
async function liveMemory(): Promise<{ live: number; rss: number }> {
  gc();
  await new Promise((resolve) => setTimeout(resolve, 200));
  gc();
  const m = process.memoryUsage();
  return { live: m.heapUsed + m.external, rss: m.rss };
}
const mib = (n: number) => Math.round((n / MiB) * 10) / 10;

/** Answers spooled to nameless files and still open (json-answer.ts). */
const spooledAnswers = () =>
  readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    })
    .filter((target) => target.includes('/tmp/answers/')).length;

/**
 * Alternating speakers, so no two turns join: the answer's turns are exactly these (about 7.8 MiB of JSON). Intake
 * is the caller with the receptionist, the conversation the caller with staff (ingestion refuses anyone else there).
 */
const bigTurns = () =>
  Array.from({ length: TURNS }, (_, i) => ({
    speaker: i % 2 ? 'caller' : i < 9_000 ? 'receptionist' : 'staff',
    speaker_name: i % 2 || i < 9_000 ? null : 'Dana Reyes',
    segment: i < 9_000 ? 'intake' : 'conversation',
    text: `turn ${i}: ${'é"\\ and then \u2028 said 😀 '.repeat(24)}`,
    start_s: i * 1.25,
  }));

/** What JSON.stringify made of the answer before it was streamed: the bytes must not change. */
function expectedAnswer(callId: string, start: number, count: number, total: number, turns: ReturnType<typeof bigTurns>) {
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

describe('stalled readers of a large unpaged transcript', () => {
  let t: TestApp;
  let firm: TestFirm;
  const callId = 'call_big_transcript';
  const path = `/v1/calls/${callId}/transcript`;
  const turns = bigTurns();
  /** The app's own end of each connection, to see answers under way and connections closed. */
  const serverSockets: Socket[] = [];

  beforeAll(async () => {
    t = await startTestApp({ env: { ...internalEnv, HTTP_IDLE_TIMEOUT_MS: String(IDLE_MS) } });
    t.app.getHttpServer().on('connection', (socket: Socket) => serverSockets.push(socket));
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
  async function stallReaders(): Promise<{ clients: Socket[]; server: Socket[] }> {
    const known = serverSockets.length;
    const clients = Array.from({ length: STALLED }, () => {
      const socket = connect({ host: '127.0.0.1', port: Number(new URL(t.baseUrl).port) });
      socket.pause();
      socket.on('error', () => undefined);
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${firm.keys.read}\r\n\r\n`);
      return socket;
    });
    await waitFor(() => serverSockets.length >= known + STALLED, 'the stalled readers to connect');
    const server = serverSockets.slice(known);
    await waitFor(() => server.every((s) => s.writableLength > 0), 'every stalled answer to be under way', 60_000);
    return { clients, server };
  }

  it('answers every turn with the bytes and headers JSON.stringify gave, Content-Length included', async () => {
    // Uncompressed, as a client that asks for no encoding gets it (a compressed answer has no Content-Length).
    const identity = { 'accept-encoding': 'identity' };
    const whole = await t.get(path, { key: firm.keys.read, headers: identity });
    expect(whole.status).toBe(200);
    expect(whole.text).toBe(expectedAnswer(callId, 0, TURNS, TURNS, turns));
    expect(Buffer.byteLength(whole.text)).toBeGreaterThan(7.5 * MiB);
    expect(whole.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(whole.headers.get('content-length')).toBe(String(Buffer.byteLength(whole.text)));
    expect(whole.headers.get('transfer-encoding')).toBeNull();
    // The same headers as any other keyed JSON read, such as the call's own.
    const call = await t.get(`/v1/calls/${callId}`, { key: firm.keys.read, headers: identity });
    expect([...whole.headers.keys()].sort()).toEqual([...call.headers.keys()].sort());
    const page = await t.get(path, { key: firm.keys.read, query: { start_turn: 9_700, limit: 200 } });
    expect(page.text).toBe(expectedAnswer(callId, 9_700, 200, TURNS, turns.slice(9_700)));
    const tail = await t.get(path, { key: firm.keys.read, headers: identity, query: { segment: 'conversation', start_turn: 400 } });
    const conversation = turns.slice(9_000);
    expect(tail.text).toBe(expectedAnswer(callId, 400, 600, 1_000, conversation.slice(400)));
    expect(tail.headers.get('content-length')).toBe(String(Buffer.byteLength(tail.text)));
  }, 60_000);

  it('holds little memory and no database connection for ten stalled readers, until the idle bound cuts them', async () => {
    const before = await liveMemory();
    const { server } = await stallReaders();
    const stalled = await liveMemory();
    const grew = { live_mib: mib(stalled.live - before.live), rss_mib: mib(stalled.rss - before.rss) };
    const within = { live: stalled.live - before.live < STALLED_LIVE_BUDGET, rss: stalled.rss - before.rss < STALLED_RSS_BUDGET };
    expect({ ...grew, within }).toEqual({ ...grew, within: { live: true, rss: true } });
    expect(spooledAnswers()).toBe(STALLED);
    // No transaction is open for them: the snapshot was read and serialised before the first byte went out.
    const inTransaction = () =>
      t.sql(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`,
      );
    await waitFor(async () => (await inTransaction())[0].n === 0, 'no open transaction while ten readers stall');
    const asked = Date.now();
    const other = await t.get(path, { key: firm.keys.read, query: { limit: 5 } });
    expect({ status: other.status, prompt: Date.now() - asked < 10_000 }).toEqual({ status: 200, prompt: true });

    // The server's idle timeout ends each one and frees its file: Node lets a pending write that moved since it was
    // queued have one more HTTP_IDLE_TIMEOUT_MS, so the cut comes one to two idle periods after the last progress.
    await waitFor(() => server.every((s) => s.destroyed), 'the server to cut the stalled readers', 2 * IDLE_MS + 30_000);
    await waitFor(() => spooledAnswers() === 0, 'their spooled answers to be closed');
    const after = await liveMemory();
    expect(mib(after.live - before.live)).toBeLessThan(8);
  }, 120_000);

  it('frees a spooled answer as soon as its reader goes away', async () => {
    const before = await liveMemory();
    const { clients } = await stallReaders();
    expect(spooledAnswers()).toBe(STALLED);
    for (const client of clients) client.destroy();
    await waitFor(() => spooledAnswers() === 0, 'the spooled answers of readers that went away to be closed');
    const after = await liveMemory();
    expect(mib(after.live - before.live)).toBeLessThan(8);
  }, 90_000);

  it('frees the answer of a reader that went away before it was ready', async () => {
    const reads = async () =>
      (await t.sql(`SELECT count(*)::int AS n FROM audit_log WHERE org_id = $1 AND action = 'call.transcript_read'`, [firm.orgId]))[0].n;
    const readsBefore = await reads();
    const known = serverSockets.length;
    for (let i = 0; i < STALLED; i++) {
      const socket = connect({ host: '127.0.0.1', port: Number(new URL(t.baseUrl).port) });
      socket.on('error', () => undefined);
      socket.end(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${firm.keys.read}\r\n\r\n`, () => socket.destroy());
    }
    // Each read still runs to its end (it is audited), then its answer meets a closed connection.
    await waitFor(async () => (await reads()) >= readsBefore + STALLED, 'the ten reads to finish', 60_000);
    await waitFor(() => serverSockets.slice(known).every((s) => s.destroyed), 'their connections to close');
    await waitFor(() => spooledAnswers() === 0, 'no spooled answer left open');
  }, 90_000);
});
