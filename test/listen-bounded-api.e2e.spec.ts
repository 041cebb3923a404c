import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { expectOneLineError, listen, stopped, type Listening } from './support/listen';
import { Receiver, waitFor, type Behaviour } from './support/receiver';

const EMPTY = { events: [], has_more: false, next_after: null };
/** listen's stated limit on an answer (clients/typescript/bin/listen/api.mjs). */
const LIMIT_LINE =
  /^listen: the API's answer to GET \/v1\/events(\/\S+)? is larger than 8 MiB, the most listen reads; is --api-url the API\?$/;
/**
 * What the command may hold at most while refusing an answer of any size: Node and undici take about 60 MiB, the
 * answer 8 MiB, and what the socket and zlib read ahead of the refusal; both cases peaked at 226 MiB once, at the end
 * of a full run. Without the bound an endless body took it to 6.4 GB in 30 s and a gzip
 * bomb to about 1 GB: this bound tells the two apart with room for a busy machine.
 */
const PEAK_RSS_MIB = 320;

/** A gzip stream of `mib` MiB of spaces (a few hundred KiB compressed), made once. */
async function gzipBomb(mib: number): Promise<Buffer> {
  const block = Buffer.alloc(1024 * 1024, ' ');
  const source = Readable.from(
    (function* () {
      for (let i = 0; i < mib; i++) yield block;
    })(),
  );
  const chunks: Buffer[] = [];
  for await (const chunk of source.pipe(createGzip({ level: 9 }))) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The command against an API that answers too much, too slowly, or with cursors that go back and forth (a fake one
 * here): every answer is read as a stream within a stated limit (decompressed), each must arrive within a deadline,
 * and the requests are paced whatever the pages say, with no listener left behind per request.
 */
describe('listen: bounded against the API it polls', () => {
  const KEY = `svc_test_${'b'.repeat(43)}`;
  let api: Receiver;
  let receiver: Receiver;
  const running: Listening[] = [];
  /** Requests the fake API got, with their query, and when each arrived (ms). */
  let urls: string[] = [];
  let arrivals: number[] = [];

  const json = (res: ServerResponse, body: unknown, status = 200) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const counted =
    (behaviour: Behaviour): Behaviour =>
    (req, res, body) => {
      urls.push(req.url ?? '');
      arrivals.push(Date.now());
      behaviour(req, res, body);
    };
  /** Answers /v1/events: the first page (no `wait`) by `first`, the waiting ones by `waiting`. */
  const eventsApi = (first: Behaviour, waiting: Behaviour = (_q, res) => json(res, EMPTY)) =>
    api.on(
      '/v1/events',
      counted((req, res, body) => (/[?&]wait=/.test(req.url ?? '') ? waiting : first)(req, res, body)),
    );
  /** Up to 30 s: some of these answers are slow to refuse by design. */
  const expectOneLineErrorIn30s = (l: Listening, pattern: RegExp) => expectOneLineError(l, pattern, 30_000);
  const start = (extra: string[] = [], measureRss = false) => {
    const l = listen(['--api-url', api.url(''), '--key', KEY, '--forward-to', receiver.url('/hook'), '--json', ...extra], false, {
      measureRss,
    });
    running.push(l);
    return l;
  };

  beforeEach(async () => {
    [api, receiver] = await Promise.all([Receiver.start(), Receiver.start()]);
    urls = [];
    arrivals = [];
  });
  afterEach(async () => {
    for (const l of running.splice(0)) l.child.kill('SIGKILL');
    await Promise.all([api.close(), receiver.close()]);
  });

  describe('an answer of any size is refused past 8 MiB, read as a stream', () => {
    it('an endless body on the first page: one line, exit 1, the command small and the rest unread', async () => {
      const stats = { written: 0, closed: false };
      const endless: Behaviour = (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, ' ');
        const pump = () => {
          while (!res.destroyed && stats.written < 1024 ** 3) {
            stats.written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
        };
        res.on('close', () => (stats.closed = true));
        pump();
      };
      eventsApi(endless);
      const l = start([], true);
      await expectOneLineErrorIn30s(l, LIMIT_LINE);
      await waitFor(() => stats.closed, 'the answer to be dropped');
      // What the sockets' buffers hold on top of the limit, no more.
      expect(stats.written).toBeLessThan(64 * 1024 * 1024);
      expect(l.peakRssMiB()).toBeLessThan(PEAK_RSS_MIB);
    });

    it("a gzip answer that inflates to 256 MiB, an event's: counted as it inflates", async () => {
      const bomb = await gzipBomb(256);
      let served = 0;
      eventsApi(
        (_req, res) => json(res, EMPTY),
        // Once: a command that read the whole answer would forward it, and the receiver here keeps what it gets.
        (_req, res) => json(res, served++ ? EMPTY : { events: [{ id: 'evt_bomb', type: 'lead.created' }], next_after: 'evt_bomb' }),
      );
      api.on(
        '/v1/events/evt_bomb',
        counted((_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
          res.end(bomb);
        }),
      );
      const l = start([], true);
      await expectOneLineErrorIn30s(l, LIMIT_LINE);
      expect(l.stderr()).toContain('GET /v1/events/evt_bomb is larger than 8 MiB');
      expect(l.peakRssMiB()).toBeLessThan(PEAK_RSS_MIB);
      expect(receiver.received).toHaveLength(0);
    });

    it('a declared length over the limit is refused before a byte of it is read', async () => {
      eventsApi((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(9 * 1024 * 1024) });
        res.write('{"events":[');
      });
      await expectOneLineErrorIn30s(start(), LIMIT_LINE);
    });
  });

  /**
   * With --timeout 1: retried after 1 s plus the backoff (0.5 s, then 1 s), each retry saying so. A hung API held the
   * command for ever; a trickling one (a byte every 100 ms) too, each byte resetting no deadline of its.
   */
  it.each([
    ['that never answers', (() => undefined) as Behaviour],
    [
      'that trickles its answer',
      ((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 100);
        res.on('close', () => clearInterval(timer));
      }) as Behaviour,
    ],
  ])('an API %s times out with a message and backs off', async (_name, behaviour) => {
    eventsApi(behaviour);
    const l = start(['--timeout', '1']);
    await waitFor(() => urls.length >= 3, 'two retries', 15_000);
    const lines = l.stderr().trimEnd().split('\n');
    expect(lines.slice(0, 2)).toEqual([
      'listen: the API did not answer GET /v1/events?limit=100 in full within 1 s; retrying in 0.5 s',
      'listen: the API did not answer GET /v1/events?limit=100 in full within 1 s; retrying in 1.0 s',
    ]);
    // Judged by when the retries arrived. The first request is late by however long the command's first fetch takes
    // to start (Node loads its HTTP client then: 0.5 s at load 15) while its deadline already runs, so the gap after
    // it only shows there was no hot loop; the next gap is the second deadline and the 1 s backoff (2 s), shortened by
    // however late the second request arrived after its deadline started: 1.5 s still tells it from a deadline alone (1 s).
    const gaps = arrivals.slice(1, 3).map((t, i) => t - arrivals[i]);
    expect({ gaps, noHotLoop: gaps[0] >= 900, deadlineAndBackoff: gaps[1] >= 1_500 }).toEqual({
      gaps,
      noHotLoop: true,
      deadlineAndBackoff: true,
    });
    await stopped(l);
  });

  it('--timeout must be a number of seconds', async () => {
    const l = start(['--timeout', 'soon']);
    expect(await l.exited).toBe(2);
    expect(l.stderr()).toContain('--timeout must be a number of seconds from 0.1 to 600');
  });

  describe('paced on requests, whatever the cursor does', () => {
    /** Waiting pages alternate between two cursors, each listing `perPage` events the API then does not find (404). */
    const alternating = (perPage: number) => {
      let served = 0;
      eventsApi(
        (_req, res) => json(res, EMPTY),
        (_req, res) => {
          const side = served++ % 2 === 0 ? 'a' : 'b';
          const events = Array.from({ length: perPage }, (_, i) => ({ id: `evt_${side}${i}`, type: 'lead.created' }));
          json(res, { events, has_more: false, next_after: events.at(-1)!.id });
        },
      );
      for (const side of ['a', 'b'])
        for (let i = 0; i < perPage; i++)
          api.on(
            `/v1/events/evt_${side}${i}`,
            counted((_req, res) => json(res, { code: 'not_found' }, 404)),
          );
    };
    /** Requests that arrived in the `seconds` after the command said it was ready. */
    const requestsOver = async (l: Listening, seconds: number) => {
      await waitFor(() => l.lines.some((x) => x.kind === 'ready'), 'the ready line');
      const from = Date.now();
      await waitFor(() => Date.now() - from >= seconds * 1000, `${seconds} s`, seconds * 1000 + 1000);
      return arrivals.filter((t) => t >= from && t < from + seconds * 1000).length;
    };

    it('pages alternating next_after, each event 404: a poll a second (a page and its event), no listener piling up', async () => {
      alternating(1);
      const l = start();
      // Unpaced: 2,133 requests a second, and a MaxListenersExceededWarning.
      expect(await requestsOver(l, 3)).toBeLessThanOrEqual(3 * 2 + 2);
      await stopped(l);
      expect(l.stderr()).not.toContain('MaxListenersExceededWarning');
    });

    it('pages of 50 events, alternating, each 404: at most 20 requests a second after a burst of 20', async () => {
      alternating(50);
      const l = start();
      const n = await requestsOver(l, 3);
      expect(n).toBeLessThanOrEqual(20 + 3 * 20);
      // Still moving: the pace is a rate, not a stop.
      expect(n).toBeGreaterThanOrEqual(20);
      await stopped(l);
      expect(l.stderr()).not.toContain('MaxListenersExceededWarning');
    });
  });
});
