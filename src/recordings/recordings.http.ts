import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MethodNotAllowedError } from '../common/errors/problems.js';
import { exemptFromRequestDeadline } from '../common/http/request-deadline.js';
import { declarationOf } from '../common/http/route-declaration.js';
import type { Playback } from './recording-model.js';

export const headNotAllowed = () => new MethodNotAllowedError('HEAD is not supported on this endpoint; use GET.', 'GET');

/** The route declares an audio/ogg stream as its body (the recording upload). */
const isUpload = (req: FastifyRequest) => {
  const body = declarationOf(req)?.body;
  return body?.kind === 'stream' && body.contentType === 'audio/ogg';
};
/** The route's credential is its link token (recording links). */
const isLink = (req: FastifyRequest) => declarationOf(req)?.access.kind === 'link';

/**
 * The raw-HTTP parts of recordings, installed on the Fastify instance where
 * the app is built (src/create-app.ts):
 * - an `audio/ogg` body reaches the upload route as the untouched request
 *   stream (never buffered, so Fastify's bodyLimit does not apply; the
 *   service enforces RECORDING_MAX_BYTES), and no other route accepts it;
 * - an upload with another content type is refused with a 415 that says what
 *   to send, before any byte is read (its declaration: unread-bodies.ts);
 * - the upload is exempt from the whole-request bound (HTTP_REQUEST_TIMEOUT_MS):
 *   only inactivity (HTTP_IDLE_TIMEOUT_MS) ends a slow but moving upload;
 * - the recording-link route never carries cross-origin headers, even if a
 *   CORS policy is added to the app later.
 */
export function configureRecordingsHttp(fastify: FastifyInstance): void {
  fastify.addContentTypeParser('audio/ogg', (req, payload, done) => {
    if (isUpload(req)) return done(null, payload);
    done(Object.assign(new Error('Unsupported Media Type'), { statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' }), undefined);
  });
  // Both synchronous: they do something only on the upload and the link routes.
  fastify.addHook('onRequest', (req, _reply, done) => {
    if (isUpload(req)) exemptFromRequestDeadline(req.raw);
    done();
  });
  fastify.addHook('onSend', (req, reply, payload, done) => {
    if (isLink(req)) {
      for (const name of Object.keys(reply.getHeaders())) if (name.toLowerCase().startsWith('access-control-')) reply.removeHeader(name);
    }
    done(null, payload);
  });
}

/**
 * Streams a playback: 200 with the whole file or 206 with the one range,
 * with exact Content-Length, Accept-Ranges and (for 206) Content-Range.
 */
export function sendAudio(reply: FastifyReply, p: Playback, extraHeaders: Record<string, string> = {}): FastifyReply {
  const size = p.object.size;
  reply.headers({
    'content-type': 'audio/ogg',
    'accept-ranges': 'bytes',
    etag: p.etag,
    'cache-control': 'private, no-store',
    'x-content-type-options': 'nosniff',
    ...extraHeaders,
  });
  if (p.range) {
    reply
      .code(206)
      .header('content-range', `bytes ${p.range.start}-${p.range.end}/${size}`)
      .header('content-length', String(p.range.end - p.range.start + 1));
  } else {
    reply.code(200).header('content-length', String(size));
  }
  return reply.send(p.object.stream(p.range ?? undefined));
}
