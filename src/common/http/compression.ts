import fastifyCompress from '@fastify/compress';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * JSON answers (problem+json included) are compressed. The plugin also compresses what the mime database calls
 * compressible (the Prometheus text, which Prometheus asks for as gzip and reads as such; Swagger UI's scripts);
 * audio/ogg is not, so recordings keep their exact Content-Length, Accept-Ranges and 206 ranges.
 */
const COMPRESSED_TYPES = /^application\/(?:problem\+)?json(?:;|$)/;
/** Below this many bytes a compressed answer saves less than the work costs; a streamed answer is always compressed. */
export const COMPRESS_ABOVE_BYTES = 1024;
/**
 * In the order preferred when the client accepts both equally: gzip. On a page of 100 calls brotli (quality 4) saved
 * 1.5% more bytes for twice the CPU of gzip; it is used when the client asks for it alone or prefers it by q-value.
 */
export const COMPRESSED_ENCODINGS: ('br' | 'gzip')[] = ['gzip', 'br'];

/** Adds Accept-Encoding to the answer's Vary header, keeping what another stage put there (CORS adds Origin). */
function varyOnAcceptEncoding(reply: FastifyReply): void {
  const current = reply.getHeader('vary');
  const listed = [current ?? []].flat().map(String).join(',');
  if (/(?:^|,)\s*(?:\*|accept-encoding)\s*(?:,|$)/i.test(listed)) return;
  // Lower case, as the plugin writes it: it then sees the value is already there and adds no second one.
  reply.header('vary', listed ? `${listed}, accept-encoding` : 'accept-encoding');
}

/**
 * Compression of JSON answers the client asks for (`Accept-Encoding: br` or
 * `gzip`), by @fastify/compress on each route's onSend stage, after the
 * entity tag is taken from the uncompressed bytes (entity-tags.ts). A
 * streamed answer loses its Content-Length when compressed (its length is not
 * known before the end), so the header is never wrong. Request bodies are
 * never decompressed: one with a Content-Encoding other than identity is
 * refused with 415 before it is read (content-coding.ts). Every JSON answer says `Vary: Accept-Encoding`, compressed or not,
 * so a shared cache never hands one client's encoding to another. Must be
 * awaited before any route is registered (the plugin hooks each route as it
 * is added).
 */
export async function installCompression(fastify: FastifyInstance): Promise<void> {
  await fastify.register(fastifyCompress, {
    global: true,
    globalDecompression: false,
    encodings: COMPRESSED_ENCODINGS,
    threshold: COMPRESS_ABOVE_BYTES,
    customTypes: COMPRESSED_TYPES,
  });
  fastify.addHook('onSend', (_req, reply, payload, done) => {
    if (COMPRESSED_TYPES.test(String(reply.getHeader('content-type') ?? ''))) varyOnAcceptEncoding(reply);
    done(null, payload);
  });
}
