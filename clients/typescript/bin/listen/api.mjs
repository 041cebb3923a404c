// The API as the listen command (listen.mjs) reads it: GET with the key, paced, each answer bounded in size and time,
// bounded retries, no redirect, checked pages.
import { Fatal, printable } from './terminal.mjs';
import { pause, Requests } from './requests.mjs';

export { pause };

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 30_000;
/** A Retry-After is obeyed up to this long (a larger one, or one too large for a timer, waits this long). */
const RETRY_AFTER_MAX_MS = 5 * 60_000;
/** The most an answer of the API may hold, decompressed: a page of 100 events is far smaller. */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
/** How long a request that does not wait may take to be answered in full, by default (--timeout); a waiting poll gets its wait on top. */
export const DEFAULT_TIMEOUT_S = 20;
/** Requests to the API, whatever their answers: at most this many a second, after a burst of as many. */
export const REQUESTS_PER_SECOND = 20;

/** The answer ran past its deadline (a hung or trickling API): retried after the backoff. */
class Late extends Error {}

export class Api {
  /**
   * @param {string} apiUrl
   * @param {string} key
   * @param {AbortSignal} signal the command's stop; the only signal a listener is added to (once, by Requests)
   * @param {{ timeoutMs?: number }} [opts]
   */
  constructor(apiUrl, key, signal, opts = {}) {
    this.apiUrl = apiUrl;
    this.key = key;
    this.signal = signal;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_S * 1000;
    this.requests = new Requests(signal, REQUESTS_PER_SECOND);
  }

  /**
   * GET a path: the answer's text, retried with backoff on connection failures, late answers, 429 and 5xx
   * (Retry-After obeyed within bounds). Every request waits its turn (REQUESTS_PER_SECOND, whatever came back) and
   * must be answered in full within the timeout (plus `waitSeconds` for a waiting poll); an answer over
   * MAX_ANSWER_BYTES, counted as it streams and after decompression, is fatal, as a redirect is (never followed:
   * the key would go wherever it points). null once the command is stopped.
   */
  async get(path, log, waitSeconds = 0) {
    const deadlineMs = this.timeoutMs + waitSeconds * 1000;
    for (let failures = 0; ;) {
      if (!(await this.requests.turn())) return null;
      let answer;
      try {
        answer = await this.requests.run(
          deadlineMs,
          (signal) => this.exchange(path, signal),
          () => new Late(),
        );
      } catch (err) {
        if (this.signal.aborted) return null;
        if (err instanceof Fatal) throw err;
        const wait = retryDelay(++failures);
        const what =
          err instanceof Late
            ? `the API did not answer GET ${printable(path)} in full within ${deadlineMs / 1000} s`
            : `cannot reach ${this.apiUrl} (${printable(reason(err))})`;
        log(`${what}; retrying in ${(wait / 1000).toFixed(1)} s`);
        await pause(wait, this.signal);
        continue;
      }
      const { status, retryAfter, text } = answer;
      if (status >= 200 && status < 300) return { status, text };
      if (status === 404 && path.startsWith('/v1/events/')) return { status: 404, text };
      // A database failover lost the event `after` names: the caller resumes from the restart point the API gives.
      const lost = status === 400 && path.startsWith('/v1/events?') ? afterLost(text) : undefined;
      if (lost !== undefined) return { status, text, restartAfter: lost };
      if (status !== 429 && status < 500) throw new Fatal(refusal(status, text));
      const wait = retryWait(retryAfter, ++failures);
      log(`the API answered ${status}; retrying in ${(wait / 1000).toFixed(1)} s`);
      await pause(wait, this.signal);
    }
  }

  /** One request and its whole answer, read within MAX_ANSWER_BYTES; `signal` ends it (the deadline or the stop). */
  async exchange(path, signal) {
    const res = await fetch(`${this.apiUrl}${path}`, {
      headers: { authorization: `Bearer ${this.key}` },
      redirect: 'manual',
      signal,
    });
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      throw new Fatal(redirected(res.status, res.headers.get('location')));
    }
    const text = await readBounded(res, MAX_ANSWER_BYTES, `GET ${path.split('?')[0]}`);
    return { status: res.status, retryAfter: res.headers.get('retry-after'), text };
  }
}

/**
 * The answer's body as text, read as a stream and refused (Fatal, the rest cancelled) past `limit` bytes: the bytes
 * fetch hands over are decompressed, so an answer that inflates (a gzip bomb) is counted as it inflates.
 */
export async function readBounded(res, limit, what) {
  const tooLarge = () =>
    new Fatal(
      `the API's answer to ${printable(what)} is larger than ${limit / (1024 * 1024)} MiB, the most listen reads; is --api-url the API?`,
    );
  const declared = res.headers.get('content-length');
  if (!res.headers.get('content-encoding') && declared !== null && Number(declared) > limit) {
    await res.body?.cancel();
    throw tooLarge();
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function redirected(status, location) {
  const where = location ? `to ${printable(location.slice(0, 300))}` : 'without a Location';
  return `the API answered ${status} redirecting ${where}; listen follows no redirect (the key would go along): pass the address you trust as --api-url`;
}

/**
 * How long to wait before retrying a 429 or 5xx: the answer's Retry-After (seconds, or an HTTP date), never less
 * than this command's own backoff (0.5 s doubling to 30 s: the floor that keeps a hostile or broken API from
 * getting a hot loop) and never more than RETRY_AFTER_MAX_MS.
 */
function retryWait(header, failures) {
  const floor = retryDelay(failures);
  const value = (header ?? '').trim();
  let asked = 0;
  if (/^\d+$/.test(value)) asked = Number(value) * 1000;
  else if (/[a-z]/i.test(value) && !Number.isNaN(Date.parse(value))) asked = Date.parse(value) - Date.now();
  return Math.min(Math.max(asked, floor), RETRY_AFTER_MAX_MS);
}

/** What the API says is a page of events, checked before anything is read from it: a malformed page is fatal. */
export function eventsPage(text, paging) {
  let page;
  try {
    page = JSON.parse(text);
  } catch {
    throw new Fatal('the API answered GET /v1/events with something that is not JSON; is --api-url the API?');
  }
  const isEvent = (e) => e !== null && typeof e === 'object' && typeof e.id === 'string' && e.id !== '' && typeof e.type === 'string';
  const pagingOk = !paging || (typeof page?.has_more === 'boolean' && (page.next_after === null || typeof page.next_after === 'string'));
  if (page === null || typeof page !== 'object' || !Array.isArray(page.events) || !page.events.every(isEvent) || !pagingOk) {
    throw new Fatal(
      'the API answered GET /v1/events with a malformed page (expected events: a list of objects with a string id and type, has_more, next_after); is --api-url the API?',
    );
  }
  return page;
}

/**
 * The `restart_after` of a 400 `after_lost` (an evt_ id, or null: from the oldest kept event); undefined for any
 * other answer, which stays a refusal.
 */
export function afterLost(text) {
  let problem;
  try {
    problem = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (problem?.code !== 'after_lost') return undefined;
  const restart = problem.restart_after;
  return restart === null || (typeof restart === 'string' && /^evt_[0-9a-z]{1,64}$/.test(restart)) ? restart : undefined;
}

function refusal(status, text) {
  let problem = {};
  try {
    problem = JSON.parse(text);
  } catch {
    // not problem+json: the status alone says it
  }
  const detail = problem?.detail ? `: ${printable(problem.detail)}` : '';
  const code = problem?.code ? ` (${printable(problem.code)})` : '';
  if (status === 401) return `the API refused the key (401${code})${detail}`;
  if (status === 403) return `the key may not read events (403${code})${detail}. listen needs a key with the webhooks:read scope.`;
  return `the API answered ${status}${code}${detail}`;
}

const retryDelay = (failures) => Math.min(FIRST_RETRY_MS * 2 ** (failures - 1), LAST_RETRY_MS);
export const reason = (err) => err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(err);
