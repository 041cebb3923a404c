// A small typed client over the generated types: openapi-fetch plus cursor iteration.
// It names paths only (never operationIds or schema names), so a regenerated document keeps it compiling.
import createClient, { type Client } from 'openapi-fetch';
import { ApiError } from './api-error.js';
import { retryingFetch, type RetryOptions } from './retries.js';
import type { paths } from './schema.js';

export type { paths, components } from './schema.js';
export type { EventLogEntry, KnownEventLogEntry, OtherEventLogEntry, WebhookEvent, WebhookEventType, WebhookPayload } from './webhooks.js';
export { isKnownEvent, KNOWN_EVENT_TYPES } from './webhooks.js';

export type ReceptionistClient = Client<paths>;
/** The JSON body of a path's 200 answer. */
export type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer B } } };
}
  ? B
  : never;
export type Call = Ok<'/v1/calls', 'get'>['calls'][number];
export type Lead = Ok<'/v1/leads', 'get'>['leads'][number];
export type CallsQuery = Omit<NonNullable<paths['/v1/calls']['get']['parameters']['query']>, 'cursor'>;
export type LeadsQuery = Omit<NonNullable<paths['/v1/leads']['get']['parameters']['query']>, 'cursor'>;

/**
 * A client of the API. Requests that get no answer, a 429, a 5xx or a 409 `idempotency_key_in_use` are sent again
 * (`retries`, default 2), and each POST carries an `Idempotency-Key` of its own, the same on its retries, so a retried
 * POST runs once (pass your own key in `headers` to keep it across restarts of your process).
 */
export function createReceptionistClient(baseUrl: string, apiKey: string, options: RetryOptions = {}): ReceptionistClient {
  return createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${apiKey}` }, fetch: retryingFetch(options) });
}

/** Every call matching the query, page after page (next_cursor while has_more). */
export async function* iterateCalls(client: ReceptionistClient, query: CallsQuery = {}): AsyncGenerator<Call> {
  let cursor: string | undefined;
  do {
    const { data, error, response } = await client.GET('/v1/calls', { params: { query: { ...query, cursor } } });
    if (!data) throw new ApiError(response.status, error);
    yield* data.calls;
    cursor = data.has_more && data.next_cursor ? data.next_cursor : undefined;
  } while (cursor);
}

/** Every lead matching the query, page after page. */
export async function* iterateLeads(client: ReceptionistClient, query: LeadsQuery = {}): AsyncGenerator<Lead> {
  let cursor: string | undefined;
  do {
    const { data, error, response } = await client.GET('/v1/leads', { params: { query: { ...query, cursor } } });
    if (!data) throw new ApiError(response.status, error);
    yield* data.leads;
    cursor = data.has_more && data.next_cursor ? data.next_cursor : undefined;
  } while (cursor);
}

export { ApiError } from './api-error.js';
export { followEvents, type FollowEventsOptions } from './follow-events.js';
export { retryingFetch, type RetryOptions } from './retries.js';
export { verifyWebhook, WebhookVerificationError, type VerifyOptions } from './verify.js';
