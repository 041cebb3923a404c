import type { FastifyInstance } from 'fastify';

/** Raised for a JSON body whose bytes are not UTF-8; framework-errors.ts words it as a 400 naming `body`. */
export class BodyNotUtf8Error extends Error {
  readonly statusCode = 400;
  readonly code = 'BODY_NOT_UTF8';
  constructor() {
    super('The body is not valid UTF-8.');
  }
}

/**
 * Replaces Fastify's application/json parser with one that refuses invalid
 * UTF-8 instead of silently decoding it to U+FFFD (which stored "caf\uFFFD"
 * for "caf\xE9"). The decoded text then goes through Fastify's own parser, so
 * empty bodies, bad JSON and __proto__/constructor poisoning answer as before.
 */
export function installStrictJsonParser(fastify: FastifyInstance): void {
  const parseText = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body as Buffer);
    } catch {
      done(new BodyNotUtf8Error(), undefined);
      return;
    }
    void parseText(req, text, done);
  });
}
