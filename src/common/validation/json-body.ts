import type { FastifyInstance } from 'fastify';
import { InvalidRequestError } from '../errors/problems.js';
import { declarationOf } from '../http/route-declaration.js';
import { MAX_DEPTH } from './string-safety.js';

/** Raised for a JSON body whose bytes are not UTF-8; framework-errors.ts words it as a 400 naming `body`. */
export class BodyNotUtf8Error extends Error {
  readonly statusCode = 400;
  readonly code = 'BODY_NOT_UTF8';
  constructor() {
    super('The body is not valid UTF-8.');
  }
}

const OPEN = new Set([0x5b, 0x7b]); // [ {
const CLOSE = new Set([0x5d, 0x7d]); // ] }
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * How deep the JSON text nests, read byte by byte (brackets inside strings do
 * not count), stopping as soon as it passes `limit`: one linear pass, so a
 * body of millions of `[` is refused without JSON.parse building millions of
 * arrays first. Malformed text is left to the parser.
 */
export function nestsDeeperThan(body: Buffer, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const b = body[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (OPEN.has(b)) {
      if (++depth > limit) return true;
    } else if (CLOSE.has(b)) depth--;
  }
  return false;
}

/**
 * Replaces Fastify's application/json parser. A route that declares no body
 * reaches here only with an empty one (the onRequest stage refused any
 * other), which is no body: not the 400 an empty JSON document would be.
 * Otherwise the body is refused when nested deeper than MAX_DEPTH (before
 * any parse) or when its bytes are not UTF-8 (instead of silently decoding
 * to U+FFFD, which stored "caf\uFFFD" for "caf\xE9"); the decoded text then
 * goes through Fastify's own parser, so bad JSON and __proto__/constructor
 * poisoning answer as before.
 */
export function installStrictJsonParser(fastify: FastifyInstance): void {
  const parseText = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const bytes = body as Buffer;
    if (declarationOf(req)?.body.kind === 'none' && bytes.length === 0) return done(null, undefined);
    if (nestsDeeperThan(bytes, MAX_DEPTH)) {
      const message = `must not be nested more than ${MAX_DEPTH} levels deep`;
      return done(new InvalidRequestError(`body ${message}.`, 'body', { errors: [{ param: 'body', message }] }), undefined);
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      done(new BodyNotUtf8Error(), undefined);
      return;
    }
    void parseText(req, text, done);
  });
}
