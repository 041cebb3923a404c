// The API as the listen command (listen.mjs) reads it: GET with the key, bounded retries, no redirect, checked pages.
import { Fatal, printable } from './terminal.mjs';

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 30_000;
/** A Retry-After is obeyed up to this long (a larger one, or one too large for a timer, waits this long). */
const RETRY_AFTER_MAX_MS = 5 * 60_000;

export class Api {
  constructor(apiUrl, key, signal) {
    this.apiUrl = apiUrl;
    this.key = key;
    this.signal = signal;
  }

  /**
   * GET a path: the answer's text, retried with backoff on connection failures, 429 and 5xx (Retry-After obeyed
   * within bounds); a redirect is never followed (the key would go wherever it points) and, like other errors, is fatal.
   */
  async get(path, log) {
    for (let failures = 0; ;) {
      let res;
      try {
        res = await fetch(`${this.apiUrl}${path}`, {
          headers: { authorization: `Bearer ${this.key}` },
          redirect: 'manual',
          signal: this.signal,
        });
      } catch (err) {
        if (this.signal.aborted) return null;
        log(`cannot reach ${this.apiUrl} (${printable(reason(err))}); retrying`);
        await pause(retryDelay(++failures), this.signal);
        continue;
      }
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel();
        throw new Fatal(redirected(res.status, res.headers.get('location')));
      }
      const text = await res.text();
      if (res.ok) return { status: res.status, text };
      if (res.status === 404 && path.startsWith('/v1/events/')) return { status: 404, text };
      if (res.status !== 429 && res.status < 500) throw new Fatal(refusal(res.status, text));
      const wait = retryWait(res.headers.get('retry-after'), ++failures);
      log(`the API answered ${res.status}; retrying in ${(wait / 1000).toFixed(1)} s`);
      await pause(wait, this.signal);
    }
  }
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

export function pause(ms, signal) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
