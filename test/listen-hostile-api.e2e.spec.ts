import type { ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { expectOneLineError, listen, stopped, type Listening } from './support/listen';
import { Receiver, waitFor, type Behaviour } from './support/receiver';

const EMPTY = { events: [], has_more: false, next_after: null };
/** First pages (read with their paging fields) and pages while waiting that the command must refuse. */
const FIRST_PAGES: [string, string][] = [
  ['{}', '{}'],
  ['events not a list', '{"events":"x","has_more":false,"next_after":null}'],
  ['an event id that is a number', '{"events":[{"id":1,"type":"x"}],"has_more":false,"next_after":null}'],
  ['an event without a type', '{"events":[{"id":"evt_1"}],"has_more":false,"next_after":null}'],
  ['has_more not a boolean', '{"events":[],"has_more":"no","next_after":null}'],
  ['a list', '[]'],
  ['null', 'null'],
  ['HTML', '<html>maintenance</html>'],
];
const WAITING_PAGES: [string, string][] = [
  ['{}', '{}'],
  ['events not a list', '{"events":{}}'],
  ['an event that is a string', '{"events":["evt_1"]}'],
];

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

  /**
   * Backed off 0.5 s, then 1 s (a hot loop made hundreds a second): judged by when the retries arrived. What a header
   * is read as is the same on every retry, so the first retry's wait says whether it was refused; the doubling after
   * it does not depend on the header and is shown once (a second retry for each header proved nothing more).
   */
  it.each([
    ['-1', 1],
    ['0', 1],
    ['soon', 1],
    ['', 2],
  ])('503 with Retry-After %j: backs off from 0.5 s, no hot loop (%d retries judged)', async (retryAfter, retries) => {
    eventsApi((_req, res) => json(res, { code: 'service_unavailable' }, 503, retryAfter ? { 'retry-after': retryAfter } : {}));
    const l = start();
    await waitFor(() => urls.length > retries, 'the retries');
    const floors = [400, 800].slice(0, retries); // 0.5 s then 1 s, less what a late arrival of the one before takes off
    expect(
      gapsFrom(0)
        .slice(0, retries)
        .map((gap, i) => gap >= floors[i]),
    ).toEqual(floors.map(() => true));
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
    await waitFor(() => urls.length >= from + 6, 'five more polls', 15_000);
    // At most once a second, judged by when they arrived, not counted in a window. listen spaces the polls it sends;
    // an arrival is late by however long the loaded machine took to deliver it (gaps of 936 ms at load 14 and of 786 ms
    // in a full run, the one before each late), so one gap may fall short by that much, and five together only by the
    // first's delay (up to 300 ms allowed; 0.9 s between polls would still fail). Each gap's floor is there for two
    // polls sent back to back, which would arrive close together however late.
    const gaps = gapsFrom(from).slice(0, 5);
    expect(gaps.filter((gap) => gap < 500)).toEqual([]);
    expect(gaps.reduce((sum, gap) => sum + gap, 0)).toBeGreaterThanOrEqual(4_700);
    await stopped(l);
  });

  it('paging that never advances is an error, not a loop', async () => {
    eventsApi((_req, res) => json(res, { events: [], has_more: true, next_after: 'evt_same' }));
    await expectOneLineError(start(), /has_more but no next page/);
    expect(urls.length).toBeLessThanOrEqual(2);
  });

  /**
   * The command on a malformed page: one line, exit 1. The page check itself is tried on every malformed page in
   * process (below); these spawns show the command applies it to the first page with its paging fields (has_more
   * not a boolean passes the check without them), to a page that is not JSON, and to a page while waiting.
   */
  it.each([
    ['a first page with has_more not a boolean', FIRST_PAGES[4][1], 'first', /GET \/v1\/events/],
    ['a first page of HTML', FIRST_PAGES[7][1], 'first', /GET \/v1\/events/],
    ['a page while waiting with an event that is a string', WAITING_PAGES[2][1], 'waiting', /malformed page/],
  ])('%s: one line, exit 1', async (_name, page, when, pattern) => {
    eventsApi(
      (_req, res) => json(res, when === 'first' ? page : EMPTY),
      (_req, res) => json(res, page),
    );
    await expectOneLineError(start(), pattern);
  });

  it('after_lost: resumes from restart_after, forwarding each event once; a lost --after resumes the same way', async () => {
    const page = (...ids: string[]) => ({
      events: ids.map((id) => ({ id, type: 'lead.updated' })),
      has_more: false,
      next_after: ids.at(-1) ?? null,
    });
    const lost = (restart: string | null) => ({ code: 'after_lost', detail: 'lost', restart_after: restart });
    eventsApi(
      (_req, res) => json(res, EMPTY),
      (req, res) => {
        const after = new URL(req.url ?? '', 'http://x').searchParams.get('after');
        if (after === null) return json(res, page('evt_1a', 'evt_1b'));
        // evt_1b was lost in a failover: the log resumes after evt_1a, with evt_1b written again and a new evt_1c.
        if (after === 'evt_1b') return json(res, lost('evt_1a'), 400);
        if (after === 'evt_1a') return json(res, page('evt_1b', 'evt_1c'));
        return json(res, EMPTY);
      },
    );
    for (const id of ['evt_1a', 'evt_1b', 'evt_1c'])
      api.on(`/v1/events/${id}`, (_req, res) => json(res, { id, type: 'lead.updated', data: {} }));
    const l = start();
    await waitFor(() => receiver.at('/hook').length >= 3, 'three forwarded events', 15_000);
    await waitFor(() => urls.filter((u) => u.includes('after=evt_1c')).length > 0, 'the poll after evt_1c');
    await stopped(l);
    expect(receiver.at('/hook').map((r) => r.headers['webhook-id'])).toEqual(['evt_1a', 'evt_1b', 'evt_1c']);
    expect(l.stderr()).toContain('the events after evt_1b were lost in a database failover; resuming after evt_1a');

    // --after naming a lost event: it starts from the restart point (null: from the oldest kept event).
    urls = [];
    api.on('/v1/events', (req, res) => {
      urls.push(req.url ?? '');
      const after = new URL(req.url ?? '', 'http://x').searchParams.get('after');
      json(res, after === 'evt_gone' ? lost(null) : EMPTY, after === 'evt_gone' ? 400 : 200);
    });
    const fromLost = start(['--after', 'evt_gone']);
    await waitFor(() => fromLost.lines[0], 'the ready line');
    expect(fromLost.lines[0]).toMatchObject({ kind: 'ready', after: null });
    await stopped(fromLost);
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

/** The command's check of a page, called in process: a Fatal of one line with exit code 1 for every malformed page. */
describe('listen: the page check', () => {
  const refusal = async (page: string, paging: boolean) => {
    // Plain JavaScript without types, as integrators run it.
    const { eventsPage } = (await import(resolve(process.cwd(), 'clients/typescript/bin/listen/api.mjs'))) as {
      eventsPage: (text: string, paging: boolean) => unknown;
    };
    try {
      eventsPage(page, paging);
      return null;
    } catch (err) {
      const { constructor, code, message } = err as Error & { code: number };
      return { fatal: constructor.name, code, message };
    }
  };
  const oneLine = (pattern: RegExp) => ({
    fatal: 'Fatal',
    code: 1,
    message: expect.stringMatching(new RegExp(`^[^\n]*${pattern.source}[^\n]*$`)),
  });

  it.each(FIRST_PAGES)('a malformed first page (%s)', async (_name, page) => {
    expect(await refusal(page, true)).toEqual(oneLine(/GET \/v1\/events/));
  });
  it.each(WAITING_PAGES)('a malformed page while waiting (%s)', async (_name, page) => {
    expect(await refusal(page, false)).toEqual(oneLine(/malformed page/));
  });
  it('an empty page passes, first or while waiting', async () => {
    expect([await refusal(JSON.stringify(EMPTY), true), await refusal('{"events":[]}', false)]).toEqual([null, null]);
  });
});
