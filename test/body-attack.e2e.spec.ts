import type { FastifyInstance } from 'fastify';
import { connect } from 'node:net';
import { registeredRoutes } from '../src/common/http/route-table';
import { PERMISSION_SETS, type Scope } from '../src/common/http/scopes';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from './support/call-documents';
import { createFirm, type TestFirm } from './support/factories';
import { rawRequest } from './support/raw-http';
import { startTestApp, type TestApp } from './support/test-app';
import { bigParsesDuring } from './support/json-parse-spy';
import { hold } from './support/time';

const MiB = 1024 * 1024;
/** 8 MiB of nesting: `[` 4 Mi times, then `]` as often (1 to 2 s of JSON.parse, and 2 GB of RSS for 8 in flight, before). */
const DEEP = Buffer.concat([Buffer.alloc(4 * MiB, '['), Buffer.alloc(4 * MiB, ']')]);

/**
 * Sends the deep body to 127.0.0.1 (Content-Length, or chunked) and resolves
 * with the status once the server has answered and closed; the body is
 * written as the socket takes it, and the server may close long before it is
 * all sent (then a reset can overtake the answer: 0).
 */
function sendDeep(baseUrl: string, target: string, key: string, chunked: boolean): Promise<number> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect(Number(port), '127.0.0.1', () => {
      const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${DEEP.length}`;
      socket.write(
        `PATCH ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`,
      );
      if (chunked) socket.write(`${DEEP.length.toString(16)}\r\n`);
      socket.write(DEEP);
      if (chunked) socket.write('\r\n0\r\n\r\n');
    });
    socket.setTimeout(30_000, () => socket.destroy(new Error('no answer within 30 s')));
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
  });
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)];

describe('an 8 MiB deeply nested body can no longer stall the service', () => {
  let t: TestApp;
  let firm: TestFirm;
  let leadId: string;

  beforeAll(async () => {
    t = await startTestApp({ env: internalEnv });
    firm = await createFirm(t.app);
    leadId = (await ingestOk(t, firm.orgId, nextCallId(), fullCallDocument())).lead_id as string;
  });
  afterAll(() => t.close());

  it('to every keyed route, with the weakest key or none: refused (401/403/413) or left unread, never parsed', async () => {
    const keyed = registeredRoutes(t.app.getHttpAdapter().getInstance() as FastifyInstance).filter(
      (r) => r.declaration?.access.kind === 'key' && r.method !== 'HEAD',
    );
    expect(keyed.length).toBeGreaterThanOrEqual(10);
    const weak = firm.keys['read-no-transcripts'];
    const weakScopes: readonly Scope[] = PERMISSION_SETS['read-no-transcripts'].scopes;
    const answers: string[] = [];
    const parses = await bigParsesDuring(async () => {
      for (const r of keyed) {
        const target = r.url.replace(/:(\w+)/g, (_m, name: string) => (name === 'lead_id' ? leadId : 'c1'));
        for (const key of [undefined, weak]) {
          const headers: [string, string][] = [
            ['Content-Type', 'application/json'],
            ...(key ? ([['Authorization', `Bearer ${key}`]] as [string, string][]) : []),
          ];
          const a = await rawRequest(t.baseUrl, { method: r.method, target, headers, body: DEEP });
          const scope = (r.declaration!.access as { scope: Scope }).scope;
          const expected = !key ? 401 : !weakScopes.includes(scope) ? 403 : r.method === 'GET' ? 'unread' : 413;
          const ok =
            expected === 'unread' ? a.status < 500 && a.status !== 413 && a.headers.get('connection') === 'close' : a.status === expected;
          if (!ok) answers.push(`${r.method} ${r.url} ${key ? 'weak key' : 'no key'}: ${a.status}, expected ${expected}`);
        }
      }
    });
    expect(answers).toEqual([]);
    expect(parses).toBe(0);
  });

  it('while 8 such bodies a second arrive from a key holding the scope, GET /v1/health stays fast and RSS flat', async () => {
    const key = firm.keys['read-update-leads'];
    const target = `/v1/leads/${leadId}`;
    // Warm-up: both refusals and the health route have run once before anything is measured.
    await Promise.all([sendDeep(t.baseUrl, target, key, false), sendDeep(t.baseUrl, target, key, true), fetch(`${t.baseUrl}/v1/health`)]);
    const statuses: number[] = [];
    /** One second of attack: 8 bodies 125 ms apart, alternately with Content-Length and chunked; over once all are answered. */
    const attack = async () => {
      const sent: Promise<void>[] = [];
      for (let i = 0; i < 8; i++) {
        sent.push(sendDeep(t.baseUrl, target, key, i % 2 === 1).then((s) => void statuses.push(s)));
        await hold(125);
      }
      await Promise.all(sent);
    };
    // The control is the same probe with no attack, in windows interleaved with the attack's (A C C A A C C A A C), each
    // as long as the attack window before it: on a shared machine the load moves over seconds, and a control measured
    // before the attack (as this test once did) judged an attack at load 19 against a quiet probe at load 15.
    const rssBefore = process.memoryUsage().rss;
    const windows = ['attack', 'control', 'control', 'attack', 'attack', 'control', 'control', 'attack', 'attack', 'control'] as const;
    let lastAttackMs = 1_000;
    const samples = await probeHealth(t.baseUrl, windows, async (w) => {
      if (w === 'control') return hold(lastAttackMs);
      const started = performance.now();
      await attack();
      lastAttackMs = performance.now() - started;
    });
    const rssGrowthMiB = (process.memoryUsage().rss - rssBefore) / MiB;
    const [latencies, quiet] = (['attack', 'control'] as const).map((w) => samples.filter((s) => s.window === w).map((s) => s.ms));
    // 413 on the Content-Length; a chunked one is refused at its first chunk, too deep (400); or reset while still sending.
    expect(statuses.filter((s) => ![400, 413, 0].includes(s))).toEqual([]);
    expect(statuses.length).toBe(40);
    expect(statuses.filter((s) => s > 0).length).toBeGreaterThanOrEqual(20);
    expect(latencies.length).toBeGreaterThanOrEqual(20);
    expect(quiet.length).toBeGreaterThanOrEqual(20);
    const figures = (ms: number[]) =>
      `p50 ${percentile(ms, 50).toFixed(0)} ms, slowest ${[...ms]
        .sort((x, y) => y - x)
        .slice(0, 3)
        .map((x) => x.toFixed(0))
        .join(', ')} ms (${ms.length})`;
    process.stderr.write(
      `body attack: health ${figures(latencies)} under attack, ${figures(quiet)} without; RSS +${rssGrowthMiB.toFixed(1)} MiB\n`,
    );
    // Parsing these bodies blocked the event loop 1 to 2 s each, so health waited seconds; refused unread, health is
    // as fast as without the attack. Bounds relative to the control windows of the same run hold on a busy machine
    // too; the figures on a quiet one are in docs/benchmarks.md.
    expect(percentile(latencies, 50)).toBeLessThan(100 + 4 * percentile(quiet, 50));
    // The tail: at load 19, two answers in a hundred under attack took 0.2 to 0.6 s while the control's slowest took
    // 30 to 40 ms (the attack's bytes are still written, read and dropped by this one process); a server that parsed
    // these bodies delays every answer by seconds. So no more than 2 answers over the tail bound.
    expect(latencies.filter((ms) => ms >= 250 + 4 * percentile(quiet, 99)).length).toBeLessThanOrEqual(2);
    expect(rssGrowthMiB).toBeLessThan(64);
  });
});

/**
 * GET /v1/health in a loop (25 ms apart) while `during` runs for each window in turn: the latency of each answer, in
 * ms, with the window it was asked and answered in. One that spans two windows counts in neither: a control window
 * must not hold the answers the next attack delayed.
 */
async function probeHealth<W extends string>(
  baseUrl: string,
  windows: readonly W[],
  during: (window: W) => Promise<void>,
): Promise<{ window: W; ms: number }[]> {
  const samples: { window: W; ms: number }[] = [];
  let current = 0;
  const probe = (async () => {
    while (current < windows.length) {
      const [window, started] = [current, performance.now()];
      expect((await fetch(`${baseUrl}/v1/health`)).status).toBe(200);
      if (current === window) samples.push({ window: windows[window], ms: performance.now() - started });
      await hold(25);
    }
  })();
  for (; current < windows.length; current++) await during(windows[current]);
  await probe;
  return samples;
}
