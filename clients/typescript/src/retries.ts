// Retries that are safe: a request that got no answer, or an answer that says "not now", is sent again; a POST carries
// an Idempotency-Key (one per call, the same on each of its retries), so a POST whose answer was lost is not run twice.

export interface RetryOptions {
  /** How many times a request is sent again after no answer, a 429, a 5xx or a 409 `idempotency_key_in_use` (default 2; 0: never). */
  retries?: number;
  /** Add an `Idempotency-Key` (a random UUID) to each POST that has none (default true). */
  idempotencyKeys?: boolean;
  /** The fetch to send with (default: the global one). */
  fetch?: (input: Request) => Promise<Response>;
}

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 30_000;
const RETRIED_STATUSES = new Set([429, 500, 502, 503, 504]);

/** Whether the answer says to send the same request again later. */
async function sayRetry(res: Response): Promise<boolean> {
  if (RETRIED_STATUSES.has(res.status)) return true;
  if (res.status !== 409) return false;
  // Only the idempotency stage's 409: the same request is still being processed, and its answer will be kept.
  const problem = (await res
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown } | null;
  return problem?.code === 'idempotency_key_in_use';
}

function waitMs(res: Response | null, attempt: number): number {
  const seconds = Number(res?.headers.get('retry-after'));
  if (Number.isFinite(seconds) && seconds > 0) return Math.min(seconds * 1000, LAST_RETRY_MS);
  return Math.min(FIRST_RETRY_MS * 2 ** (attempt - 1), LAST_RETRY_MS);
}

/**
 * A fetch for openapi-fetch that retries. A POST without an Idempotency-Key is given one before its first attempt, so
 * every retry of it is the same request to the service: it runs once, and a retry whose first attempt did run gets
 * that attempt's answer (`Idempotent-Replayed: true`). A GET needs no key: reading twice changes nothing.
 */
export function retryingFetch(options: RetryOptions = {}): (input: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const retries = options.retries ?? 2;
  return async (input: Request) => {
    const request =
      options.idempotencyKeys !== false && input.method === 'POST' && !input.headers.has('idempotency-key')
        ? withHeader(input, 'idempotency-key', globalThis.crypto.randomUUID())
        : input;
    for (let attempt = 1; ; attempt++) {
      let res: Response | null = null;
      try {
        res = await send(request.clone());
        if (attempt > retries || !(await sayRetry(res))) return res;
      } catch (err) {
        // No answer (the connection failed or dropped): send again unless aborted or out of retries.
        if (attempt > retries || request.signal.aborted) throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, waitMs(res, attempt)));
    }
  };
}

function withHeader(request: Request, name: string, value: string): Request {
  const headers = new Headers(request.headers);
  headers.set(name, value);
  return new Request(request, { headers });
}
