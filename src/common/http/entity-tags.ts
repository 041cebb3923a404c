import { createHash, type Hash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { declarationOf } from './route-declaration.js';

/** Where a streamed JSON answer (json-answer.ts) carries its tag, since its bytes pass the onSend stage as a stream. */
export const ANSWER_TAG = Symbol('answerTag');

type Tagged = { [ANSWER_TAG]?: string };

/** A strong entity tag: the base64url SHA-256 of the hashed bytes, quoted. */
export const entityTag = (hash: Hash): string => `"${hash.digest('base64url')}"`;

/** The tag of a whole answer held in memory: the hash of its exact bytes. */
export const tagOfBytes = (bytes: string | Buffer): string => entityTag(createHash('sha256').update(bytes));

/**
 * Whether an If-None-Match value matches the current tag: `*`, or any listed
 * tag equal to it by the weak comparison RFC 9110 asks for on this header
 * (a `W/` prefix is ignored). A value that lists no tag matches nothing.
 */
export function ifNoneMatchHits(header: string | string[] | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const value = [header].flat().join(',');
  if (value.trim() === '*') return true;
  const opaque = tag.replace(/^W\//, '');
  return (value.match(/(?:W\/)?"[^"]*"/g) ?? []).some((listed) => listed.replace(/^W\//, '') === opaque);
}

function tagOf(payload: unknown): string | undefined {
  if (typeof payload === 'string' || Buffer.isBuffer(payload)) return tagOfBytes(payload);
  return (payload as Tagged | null)?.[ANSWER_TAG];
}

/** The 200 of a route declared `etag` becomes 304 when the client holds this exact answer: nothing of its body is sent. */
function answerNotModified(reply: FastifyReply, payload: unknown): null {
  (payload as { destroy?: () => void } | null)?.destroy?.();
  reply.code(304);
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
  return null;
}

/**
 * Conditional reads of single resources. Runs on the answer the handler
 * produced, before compression: the handler ran in full (scoped, so another
 * firm's id is still 404; rate-limited and audited like any read), and only a
 * 200 of a route declared `etag` gets a tag and can become 304.
 */
export function installEntityTags(fastify: FastifyInstance): void {
  fastify.addHook('onSend', (req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
    done(null, taggedPayload(req, reply, payload));
  });
}

/** The payload to send: as it was, or null for a 304 (the ETag header set on a 200 of a route declared `etag`). */
function taggedPayload(req: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (!declarationOf(req)?.etag || reply.statusCode !== 200) return payload;
  const tag = tagOf(payload);
  if (!tag) return payload;
  reply.header('ETag', tag);
  return ifNoneMatchHits(req.headers['if-none-match'], tag) ? answerNotModified(reply, payload) : payload;
}
