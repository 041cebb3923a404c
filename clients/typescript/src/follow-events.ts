// Following the events feed without a public endpoint: GET /v1/events with `wait`, resuming after the last event seen.
import type { Client } from 'openapi-fetch';
import { ApiError } from './api-error.js';
import type { EventLogEntry } from './webhooks.js';
import type { paths } from './schema.js';

type EventsQuery = NonNullable<paths['/v1/events']['get']['parameters']['query']>;

export interface FollowEventsOptions {
  /** Start after this evt_ id (the last one you handled); omitted: from the oldest kept event. */
  after?: string;
  /** Only these event types (one type is filtered by the service, several here); omitted: every type. */
  types?: string[];
  /** Seconds each request may wait for a new event, 1 to 30 (default 25). */
  wait?: number;
  /** Page size, 1 to 100. */
  limit?: number;
  /** Ends the iteration (an abort while waiting ends it at once). */
  signal?: AbortSignal;
}

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 30_000;
/** Ids of the events yielded lately, so a resumption after `after_lost` yields none of them twice. */
const REMEMBERED_IDS = 10_000;

/**
 * Every event after `after`, for ever: each request waits up to `wait` seconds
 * for the next one, so a new event arrives within about a second of its commit.
 * The position moves past every event it passes (yielded or filtered out), so a
 * new loop started with the last yielded id resumes where this one stopped.
 * Timeouts, 429 and 5xx answers are retried with backoff. A database failover
 * can lose the event the position names: the service then answers 400
 * `after_lost` with `restart_after`, and the iteration goes on from there,
 * skipping the events it has already yielded (of the last 10,000), so nothing
 * the log holds is missed. Any other error answer ends the iteration with an
 * ApiError (a key without webhooks:read: 403).
 */
export async function* followEvents(client: Client<paths>, opts: FollowEventsOptions = {}): AsyncGenerator<EventLogEntry> {
  let after = opts.after;
  const types = opts.types?.length ? new Set(opts.types) : null;
  const type = types?.size === 1 ? ([...types][0] as EventsQuery['type']) : undefined;
  let failures = 0;
  const yielded = new Set<string>();
  while (!opts.signal?.aborted) {
    const query: EventsQuery = { after, type, wait: opts.wait ?? 25, limit: opts.limit };
    let answer;
    try {
      answer = await client.GET('/v1/events', { params: { query }, signal: opts.signal });
    } catch {
      // The connection failed (or the signal aborted it): retry unless aborted.
      if (opts.signal?.aborted) return;
      await pause(retryDelay(++failures), opts.signal);
      continue;
    }
    const { data, error, response } = answer;
    if (!data) {
      const lost = restartPoint(error);
      if (lost !== undefined) {
        after = lost ?? undefined;
        continue;
      }
      if (response.status !== 429 && response.status < 500) throw new ApiError(response.status, error);
      await pause(retryAfter(response) ?? retryDelay(++failures), opts.signal);
      continue;
    }
    failures = 0;
    for (const event of data.events) {
      after = event.id;
      if (yielded.has(event.id) || (types && !types.has(event.type))) continue;
      remember(yielded, event.id);
      yield event;
    }
  }
}

/** The event to resume after when the answer is `after_lost` (null: from the oldest kept); undefined for any other. */
function restartPoint(error: unknown): string | null | undefined {
  const problem = error as { code?: unknown; restart_after?: unknown } | undefined;
  if (problem?.code !== 'after_lost') return undefined;
  return typeof problem.restart_after === 'string' ? problem.restart_after : null;
}

function remember(ids: Set<string>, id: string): void {
  ids.add(id);
  if (ids.size > REMEMBERED_IDS) ids.delete(ids.values().next().value!);
}

const retryDelay = (failures: number) => Math.min(FIRST_RETRY_MS * 2 ** (failures - 1), LAST_RETRY_MS);

function retryAfter(response: Response): number | null {
  const seconds = Number(response.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, LAST_RETRY_MS) : null;
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
