import type { OpenAPIObject } from '@nestjs/swagger';
import {
  CONCURRENCY_QUEUE_WAIT_MS,
  DEFAULT_CONCURRENT_REQUESTS_PER_KEY,
  DEFAULT_RATE_LIMIT_PER_SECOND,
  defaultRateLimitBurst,
} from '../../config/app-config.js';
import { storesAnswer } from './idempotency-key-header.js';

type Schema = Record<string, unknown>;
type Response = { headers?: Record<string, unknown>; content?: Record<string, unknown>; [k: string]: unknown };
type Operation = { security?: unknown[]; parameters?: { name?: string; in?: string }[]; responses?: Record<string, Response> };

const Q = DEFAULT_RATE_LIMIT_PER_SECOND;
const BURST = defaultRateLimitBurst(Q);
const AT_ONCE = DEFAULT_CONCURRENT_REQUESTS_PER_KEY;
const POLICY_EXAMPLE = `"default";q=${Q};w=1, "concurrency";q=${AT_ONCE};qu="concurrency"`;

/** The general limit as the document states it: the defaults, since the document is the same for every deployment. */
export const RATE_LIMIT_TEXT = `Each API key may make ${Q} requests per second by default, in bursts of up to ${BURST} after a pause (a token bucket shared by every api process, which each process draws from a tenth of a second's worth at a time: in any window a key may get at most that much more per api process than the bucket alone would allow; the operator can change both).`;

/** The per-key cap on requests under way at once, as the document states it (the default). */
export const CONCURRENCY_TEXT = `A key may also have ${AT_ONCE} requests under way at once in each api process by default: more wait in line (up to ${CONCURRENCY_QUEUE_WAIT_MS / 1000} s, first come first served) for one to finish, then get 429 \`rate_limited\` with \`Retry-After: 1\`.`;

const header = (description: string, schema: Schema, example: unknown, required = true) => ({ description, required, schema, example });

/** The response headers the service sends, declared once and referenced from every response that carries them. */
export const RESPONSE_HEADERS = {
  RequestId: header(
    'Id of this request; quote it to support. Also `request_id` in error bodies.',
    { type: 'string' },
    '5b0c7f0e-2f1a-4d7e-9a51-0f3e2c1d4b6a',
  ),
  RateLimitPolicy: header(
    `The per-key quotas (IETF draft httpapi-ratelimit-headers-09): \`"default"\`, \`q\` requests per \`w\` seconds; then \`"concurrency"\`, \`q\` requests under way at once in each api process (quota unit \`concurrency\`). By default \`${POLICY_EXAMPLE}\`.`,
    { type: 'string' },
    POLICY_EXAMPLE,
  ),
  RateLimit: header(
    `What remains of the quota (IETF draft httpapi-ratelimit-headers-09): \`r\` whole requests left now (as the answering api process last saw the shared bucket), \`t\` seconds until one is back (0 while \`r\` > 0). After a pause \`r\` can exceed \`q\`, up to the burst (${BURST} by default).`,
    { type: 'string' },
    `"default";r=${Q - 1};t=0`,
  ),
  RetryAfter: header('Seconds to wait before retrying.', { type: 'integer', minimum: 0 }, 30),
  WwwAuthenticate: header('The authentication scheme to use: `Bearer`.', { type: 'string' }, 'Bearer'),
  Allow: header('The methods the path answers.', { type: 'string' }, 'GET'),
  IdempotentReplayed: header(
    'Present (`true`) when this answer is the stored answer of an earlier request with the same `Idempotency-Key`, route and body: nothing was run again.',
    { type: 'string', enum: ['true'] },
    'true',
    false,
  ),
  ETag: header(
    'A strong validator of this exact answer (the hash of its JSON bytes before compression). Send it as `If-None-Match` to get 304 while it is unchanged.',
    { type: 'string' },
    '"q1b3uVZ8t0dJ0Zk8oYf0cM4b2l9wGQyVQd0nE7mH3aA"',
  ),
  Vary: header(
    '`Accept-Encoding` is among the listed names: the bytes depend on the encoding the request accepted.',
    { type: 'string' },
    'accept-encoding',
  ),
};

/** Optional, so written out where it applies (a reference cannot say optional to every generator). */
const CONTENT_ENCODING = header(
  "Present when the answer is compressed (`br` or `gzip`, as the request's `Accept-Encoding` allowed; JSON of 1 KiB or more).",
  { type: 'string', enum: ['br', 'gzip'] },
  'br',
  false,
);

const ref = (name: keyof typeof RESPONSE_HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** Compression (compression.ts) and entity tags (entity-tags.ts): what a JSON answer and a conditional read carry. */
function representationHeaders(status: string, response: Response, conditional: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const json = Object.keys(response.content ?? {}).some((type) => type.includes('json'));
  // A success passes every stage, so it always carries Vary; an error answered before the route's stages may not.
  if (json || status === '304')
    out.Vary = status.startsWith('2') || status === '304' ? ref('Vary') : { ...RESPONSE_HEADERS.Vary, required: false };
  if (json) out['Content-Encoding'] = CONTENT_ENCODING;
  if (conditional && (status === '200' || status === '304')) out.ETag = ref('ETag');
  return out;
}

/** Takes an Idempotency-Key (every keyed POST, access.decorators.ts): its kept answers can be replays. */
const idempotent = (op: Operation) => (op.parameters ?? []).some((p) => p.in === 'header' && p.name === 'Idempotency-Key');

/** Which headers a response of this status carries, besides the ones it already documents. */
function headersFor(status: string, keyed: boolean, replayable: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { 'x-request-id': ref('RequestId') };
  // The key's quota is counted once the key and its scope are accepted: every success carries the pair; an error
  // answered before that point (401, 403, 413, 415, a body that is not JSON) cannot, so there it is optional.
  // A 304 is a success that was found unchanged: it passed the same stages.
  if (keyed && (status.startsWith('2') || status === '304'))
    Object.assign(out, { 'RateLimit-Policy': ref('RateLimitPolicy'), RateLimit: ref('RateLimit') });
  else if (keyed && status !== '401') {
    out['RateLimit-Policy'] = { ...RESPONSE_HEADERS.RateLimitPolicy, required: false };
    out.RateLimit = { ...RESPONSE_HEADERS.RateLimit, required: false };
  }
  if (status === '401') out['WWW-Authenticate'] = ref('WwwAuthenticate');
  if (status === '405') out.Allow = ref('Allow');
  if (status === '429' || status === '503') out['Retry-After'] = ref('RetryAfter');
  if (replayable && /^\d{3}$/.test(status) && storesAnswer(Number(status))) out['Idempotent-Replayed'] = ref('IdempotentReplayed');
  return out;
}

/**
 * Adds the headers every answer carries (x-request-id; on keyed operations the
 * rate-limit pair; WWW-Authenticate on 401, Allow on 405, Retry-After on 429
 * and 503; Vary and Content-Encoding on JSON; ETag on conditional reads) to
 * every documented response, so no decorator can forget them.
 */
export function documentResponseHeaders(doc: OpenAPIObject): void {
  doc.components = { ...doc.components, headers: { ...doc.components?.headers, ...RESPONSE_HEADERS } };
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item as Record<string, Operation>)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      const keyed = (op.security ?? []).length > 0;
      // An operation declared `etag` documents its 304 (access.decorators.ts); its 200 and 304 carry the tag.
      const conditional = '304' in op.responses;
      for (const [status, response] of Object.entries(op.responses)) {
        // A 429's and a 503's Retry-After is the shared one; another status's (the 409 of an Idempotency-Key) is its own.
        const { 'Retry-After': retryAfter, ...own } = response.headers ?? {};
        if (retryAfter !== undefined && status !== '429' && status !== '503') own['Retry-After'] = retryAfter;
        const added = headersFor(status, keyed, idempotent(op));
        response.headers = { ...own, ...added, ...representationHeaders(status, response, conditional) };
      }
    }
  }
}
