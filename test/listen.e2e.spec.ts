import { spawn, type ChildProcess } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { Database } from '../src/database/sql';
import { EventsService } from '../src/events';
import { eventsListable, recordEvent, restrictKey } from './support/events';
import { createFirm, type TestFirm } from './support/factories';
import { freePort } from './support/net';
import { behaviours, Receiver, waitFor, type Behaviour } from './support/receiver';
import { keepChildLog } from './support/run-log';
import { startTestApp, type TestApp } from './support/test-app';

const LISTEN = resolve(process.cwd(), 'clients/typescript/bin/listen.mjs');

interface Listening {
  child: ChildProcess;
  /** stdout, one parsed JSON object per line (every line must be one); with `text`, the lines as they are. */
  lines: any[];
  stderr: () => string;
  /** stdout as written. */
  stdout: () => string;
  exited: Promise<number | null>;
}

/** Runs the listen command with plain Node, as an integrator would. */
function listen(args: string[], text = false): Listening {
  const child = spawn(process.execPath, [LISTEN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: any[] = [];
  let pending = '';
  let stderr = '';
  let stdout = '';
  child.stdout!.on('data', (d) => {
    stdout += d;
    pending += d;
    const parts = pending.split('\n');
    pending = parts.pop()!;
    for (const line of parts) lines.push(text ? line : JSON.parse(line));
  });
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((done) =>
    child.once('close', (code) => {
      // The generated signing secret is shown once on stderr by design (like the CLI's answers on stdout, which
      // are not kept either); everything else goes to the run's secret scan.
      keepChildLog('listen', stderr.replace(/whsec_\S+/g, 'whsec_[REDACTED]'));
      done(code);
    }),
  );
  return { child, lines, stderr: () => stderr, stdout: () => stdout, exited };
}

describe('listen: the events feed forwarded to a local receiver, signed', () => {
  let t: TestApp;
  let firm: TestFirm;
  let receiver: Receiver;
  const running: Listening[] = [];

  const record = (type: 'call.completed' | 'lead.created' | 'lead.updated') =>
    t.app.get(Database).transaction((m) => recordEvent(t.app.get(EventsService), m, { orgId: firm.orgId, type, data: {} }));
  const start = (extra: string[], forwardTo = receiver.url('/hook')) => {
    const l = listen(['--api-url', t.baseUrl, '--key', firm.keys.read, '--forward-to', forwardTo, '--json', ...extra]);
    running.push(l);
    return l;
  };
  const forwarded = (l: Listening) => l.lines.filter((x) => x.kind === 'forwarded');

  beforeAll(async () => {
    t = await startTestApp();
    firm = await createFirm(t.app, { publish: false });
    await restrictKey(t, firm.keyIds.read, ['webhooks:read']);
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    for (const l of running) l.child.kill('SIGKILL');
    await receiver.close();
    await t.close();
  });
  afterEach(() => {
    receiver.received.length = 0;
    receiver.on('/hook', behaviours.status(200));
  });

  it('forwards only new events, byte for byte and verifiable with the secret it printed; reports and survives a failing receiver', async () => {
    const old = await record('call.completed');
    await eventsListable(t, [old.envelope.id]); // the newest event at start, which listen starts after
    const l = start([]);
    const ready = await waitFor(() => l.lines[0], 'the ready line', 15_000);
    expect(ready).toMatchObject({ kind: 'ready', after: old.envelope.id });
    expect(ready.secret).toMatch(/^whsec_/);

    const first = await record('lead.created');
    await waitFor(() => forwarded(l).length === 1, 'the first forward', 10_000);
    const [got] = receiver.at('/hook');
    expect(got.headers['webhook-id']).toBe(first.envelope.id);
    // The receiver's production code: verify the raw body with the secret.
    expect(new Webhook(ready.secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({ id: first.envelope.id });
    expect(got.body).toBe((await t.get(`/v1/events/${first.envelope.id}`, { key: firm.keys.read })).text);
    expect(forwarded(l)[0]).toMatchObject({ event_id: first.envelope.id, type: 'lead.created', status: 200, ok: true });
    expect(typeof forwarded(l)[0].ms).toBe('number');

    receiver.on('/hook', behaviours.status(500, 'broken'));
    const failed = await record('lead.updated');
    await waitFor(() => forwarded(l).length === 2, 'the failed forward', 10_000);
    expect(forwarded(l)[1]).toMatchObject({ event_id: failed.envelope.id, status: 500, ok: false });
    receiver.on('/hook', behaviours.status(204));
    const after = await record('call.completed');
    await waitFor(() => forwarded(l).length === 3, 'the forward after the failure', 10_000);
    expect(forwarded(l)[2]).toMatchObject({ event_id: after.envelope.id, status: 204, ok: true });
    expect(receiver.at('/hook').map((r) => r.headers['webhook-id'])).not.toContain(old.envelope.id);

    l.child.kill('SIGTERM');
    expect(await l.exited).toBe(0);
  });

  it('--after replays from an id, --types filters, --secret signs with the given secret', async () => {
    const from = await record('lead.updated');
    const a = await record('lead.created');
    await record('lead.updated');
    const b = await record('call.completed');
    const secret = `whsec_${Buffer.from('a fixed secret of thirty-two bytes').toString('base64')}`;
    const l = start(['--after', from.envelope.id, '--types', 'lead.created,call.completed', '--secret', secret]);
    await waitFor(() => forwarded(l).length === 2, 'the replayed events', 15_000);
    expect(l.lines[0]).toMatchObject({ kind: 'ready', after: from.envelope.id });
    expect(l.lines[0].secret).toBeUndefined();
    expect(forwarded(l).map((x) => x.event_id)).toEqual([a.envelope.id, b.envelope.id]);
    for (const got of receiver.at('/hook'))
      expect(() => new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).not.toThrow();
    l.child.kill('SIGINT');
    expect(await l.exited).toBe(0);
  });

  it('a receiver that refuses connections is reported on each event, never fatal', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}/hook`;
    const from = await record('lead.updated');
    const [x, y] = [await record('lead.created'), await record('lead.created')];
    const l = start(['--after', from.envelope.id], nobody);
    await waitFor(() => forwarded(l).length === 2, 'both failed forwards', 15_000);
    expect(forwarded(l).map((r) => r.event_id)).toEqual([x.envelope.id, y.envelope.id]);
    for (const r of forwarded(l)) expect(r).toMatchObject({ status: null, ok: false, error: expect.stringMatching(/ECONNREFUSED/) });
    expect(l.child.exitCode).toBeNull();
    l.child.kill('SIGTERM');
    expect(await l.exited).toBe(0);
  });

  it('a key without webhooks:read gets a clear error and a non-zero exit', async () => {
    const other = await createFirm(t.app, { publish: false });
    await restrictKey(t, other.keyIds.read, ['calls:read']);
    const l = listen(['--api-url', t.baseUrl, '--key', other.keys.read, '--forward-to', receiver.url('/hook'), '--json']);
    expect(await l.exited).toBe(1);
    expect(l.stderr()).toMatch(/webhooks:read/);
    expect(l.lines).toEqual([]);
    expect(l.stderr()).not.toContain(other.keys.read);
  });

  it('without --json: the generated secret once on stderr, one line per forwarded event on stdout', async () => {
    const from = await record('lead.updated');
    const e = await record('lead.created');
    const args = ['--api-url', t.baseUrl, '--key', firm.keys.read, '--forward-to', receiver.url('/hook'), '--after', from.envelope.id];
    const l = listen(args, true);
    running.push(l);
    await waitFor(() => l.lines.length === 1, 'the forwarded line', 15_000);
    expect(l.lines[0]).toMatch(new RegExp(`lead\\.created\\s+${e.envelope.id}\\s+-> 200 in \\d+ ms$`));
    const secret = /new secret \(shown only now\): (whsec_\S+)/.exec(l.stderr())![1];
    const [got] = receiver.at('/hook');
    expect(() => new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).not.toThrow();
    l.child.kill('SIGTERM');
    expect(await l.exited).toBe(0);
  });

  it('missing options are a usage error', async () => {
    const l = listen(['--api-url', t.baseUrl]);
    expect(await l.exited).toBe(2);
    expect(l.stderr()).toMatch(/--key is required/);
  });
});

/**
 * The command against an API that is hostile or broken (a fake one here): it must not follow the API elsewhere,
 * poll it in a hot loop, crash on what it answers, or let its text drive the terminal.
 */
describe('listen: safe against the API it polls', () => {
  const KEY = `svc_test_${'h'.repeat(43)}`;
  let api: Receiver;
  let elsewhere: Receiver;
  let receiver: Receiver;
  const running: Listening[] = [];
  /** Requests the fake API got, with their query (the Receiver keeps paths only). */
  let urls: string[] = [];
  /** When each of them arrived (ms, this process's clock). */
  let arrivals: number[] = [];
  /** The gaps between consecutive requests from the `from`-th on, in ms. */
  const gapsFrom = (from: number) => arrivals.slice(from + 1).map((t, i) => t - arrivals[from + i]);

  const json = (res: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const EMPTY = { events: [], has_more: false, next_after: null };
  /** Answers /v1/events: the first page (no `wait`) by `first`, the waiting ones by `waiting`. */
  const eventsApi = (first: Behaviour, waiting: Behaviour = (_q, res) => json(res, EMPTY)) =>
    api.on('/v1/events', (req, res, body) => {
      urls.push(req.url ?? '');
      arrivals.push(Date.now());
      (/[?&]wait=/.test(req.url ?? '') ? waiting : first)(req, res, body);
    });
  const start = (extra: string[] = [], text = false) => {
    const l = listen(
      ['--api-url', api.url(''), '--key', KEY, '--forward-to', receiver.url('/hook'), ...(text ? [] : ['--json']), ...extra],
      text,
    );
    running.push(l);
    return l;
  };
  /** Exit 1 with the error as the last line on stderr: every line is one of the command's own, no stack trace. */
  const expectOneLineError = async (l: Listening, pattern: RegExp) => {
    expect(await waitFor(() => l.exited.then((code) => ({ code })), 'the command to exit', 15_000)).toEqual({ code: 1 });
    const lines = l.stderr().trimEnd().split('\n');
    expect(lines.filter((line) => !line.startsWith('listen: '))).toEqual([]);
    expect(lines.at(-1)).toMatch(pattern);
  };
  /** Stops a command that is still running and expects a clean exit. */
  const stopped = async (l: Listening) => {
    expect(l.child.exitCode).toBeNull();
    l.child.kill('SIGTERM');
    expect(await l.exited).toBe(0);
  };
  /** The characters of `text` a terminal would act on or that reorder it. */
  const unsafeIn = (text: string) =>
    [...text].filter((c) => {
      const n = c.codePointAt(0)!;
      return n < 0x20 || (n >= 0x7f && n <= 0x9f) || n === 0x202e;
    });

  beforeEach(async () => {
    [api, elsewhere, receiver] = await Promise.all([Receiver.start(), Receiver.start(), Receiver.start()]);
    urls = [];
    arrivals = [];
  });
  afterEach(async () => {
    for (const l of running.splice(0)) l.child.kill('SIGKILL');
    await Promise.all([api.close(), elsewhere.close(), receiver.close()]);
  });

  it('a redirect to another host is not followed: one error naming the Location, exit 1', async () => {
    elsewhere.on('/v1/events', (_req, res) => json(res, EMPTY));
    const location = elsewhere.url('/v1/events?limit=100');
    eventsApi((_req, res) => json(res, '', 302, { location }));
    const l = start();
    await expectOneLineError(l, /302 redirecting to http:\/\/127\.0\.0\.1:\d+\/v1\/events\?limit=100/);
    expect(l.stderr()).toContain(location);
    expect(elsewhere.received).toHaveLength(0);
    expect(urls).toHaveLength(1);
  });

  it('a redirect on the same host, while waiting, is not followed either', async () => {
    eventsApi(
      (_req, res) => json(res, EMPTY),
      (_req, res) => json(res, '', 307, { location: '/v1/events?wait=25&moved=1' }),
    );
    const l = start();
    await expectOneLineError(l, /307 redirecting to \/v1\/events\?wait=25&moved=1/);
    expect(urls.filter((u) => u.includes('moved'))).toEqual([]);
  });

  it.each([['-1'], ['0'], ['soon'], ['']])('503 with Retry-After %j: backs off from 0.5 s, no hot loop', async (retryAfter) => {
    eventsApi((_req, res) => json(res, { code: 'service_unavailable' }, 503, retryAfter ? { 'retry-after': retryAfter } : {}));
    const l = start();
    // Backed off 0.5 s, then 1 s (a hot loop made hundreds a second): judged by when the retries arrived.
    await waitFor(() => urls.length >= 3, 'two retries');
    const [first, second] = gapsFrom(0);
    expect({ first: first >= 450, second: second >= 900 }).toEqual({ first: true, second: true });
    await stopped(l);
    expect(l.stderr()).not.toContain('TimeoutOverflowWarning');
  });

  it('429 with Retry-After 9999999: waits the 5-minute maximum, with no timer overflow', async () => {
    eventsApi((_req, res) => json(res, { code: 'rate_limited' }, 429, { 'retry-after': '9999999' }));
    const l = start();
    await waitFor(() => l.stderr().includes('retrying in'), 'the retry line');
    expect(urls).toHaveLength(1);
    expect(l.stderr()).toContain('the API answered 429; retrying in 300.0 s');
    await stopped(l);
    expect(l.stderr()).not.toContain('TimeoutOverflowWarning');
  });

  it('an API that answers empty pages at once instead of waiting is polled at most once a second', async () => {
    eventsApi((_req, res) => json(res, EMPTY));
    const l = start();
    await waitFor(() => l.lines[0], 'the ready line');
    const from = urls.length;
    await waitFor(() => urls.length >= from + 4, 'three more polls');
    // At most once a second (a little less for timer slack): judged by when they arrived, not counted in a window.
    expect(gapsFrom(from).filter((gap) => gap < 950)).toEqual([]);
    await stopped(l);
  });

  it('paging that never advances is an error, not a loop', async () => {
    eventsApi((_req, res) => json(res, { events: [], has_more: true, next_after: 'evt_same' }));
    await expectOneLineError(start(), /has_more but no next page/);
    expect(urls.length).toBeLessThanOrEqual(2);
  });

  it.each([
    ['{}', '{}'],
    ['events not a list', '{"events":"x","has_more":false,"next_after":null}'],
    ['an event id that is a number', '{"events":[{"id":1,"type":"x"}],"has_more":false,"next_after":null}'],
    ['an event without a type', '{"events":[{"id":"evt_1"}],"has_more":false,"next_after":null}'],
    ['has_more not a boolean', '{"events":[],"has_more":"no","next_after":null}'],
    ['a list', '[]'],
    ['null', 'null'],
    ['HTML', '<html>maintenance</html>'],
  ])('a malformed first page (%s): one line, exit 1', async (_name, page) => {
    eventsApi((_req, res) => json(res, page));
    await expectOneLineError(start(), /GET \/v1\/events/);
  });

  it.each([
    ['{}', '{}'],
    ['events not a list', '{"events":{}}'],
    ['an event that is a string', '{"events":["evt_1"]}'],
  ])('a malformed page while waiting (%s): one line, exit 1', async (_name, page) => {
    eventsApi(
      (_req, res) => json(res, EMPTY),
      (_req, res) => json(res, page),
    );
    await expectOneLineError(start(), /malformed page/);
  });

  it("text mode escapes control characters in an event's type and id; --json keeps the value and escapes them too", async () => {
    const id = 'evt_\u001b[2J1';
    const type = 'lead.\u001b[31mred\u001b]0;owned\u0007\u009b6n\u202eexe';
    let served = 0;
    eventsApi(
      (_req, res) => json(res, EMPTY),
      (_req, res) => json(res, served++ === 0 ? { events: [{ id, type }], has_more: false, next_after: id } : EMPTY),
    );
    api.on(`/v1/events/${encodeURIComponent(id)}`, (_req, res) => json(res, { id, type, data: {} }));
    const text = start([], true);
    await waitFor(() => text.lines.length > 0, 'the forwarded line', 15_000);
    await stopped(text);
    const line = text.lines[0] as string;
    expect(unsafeIn(line)).toEqual([]);
    expect(line).toContain('lead.\\x1b[31mred\\x1b]0;owned\\x07\\x9b6n\\u202eexe');
    expect(line).toContain('evt_\\x1b[2J1');

    served = 0;
    const asJson = start();
    await waitFor(() => asJson.lines.some((x) => x.kind === 'forwarded'), 'the forwarded JSON line', 15_000);
    await stopped(asJson);
    // The id cannot be a webhook-id header (fetch refuses it): reported as a failed forward, the values kept.
    expect(asJson.lines.find((x) => x.kind === 'forwarded')).toMatchObject({ event_id: id, type, ok: false });
    expect(unsafeIn(asJson.stdout())).toEqual(['\n', '\n']);
  });
});
