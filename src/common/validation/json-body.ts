import type { FastifyInstance } from 'fastify';
import { Transform } from 'node:stream';
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

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * How deep JSON text nests, read byte by byte as it arrives (brackets inside
 * strings do not count): one linear pass that stops as soon as the depth
 * passes the limit, so a body of millions of `[` is refused after its first
 * chunk, without JSON.parse building millions of arrays. Malformed text is
 * left to the parser.
 */
export class NestingScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly limit: number) {}

  /** True once the text read so far nests deeper than the limit. */
  exceeded(chunk: Uint8Array): boolean {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) this.inString = false;
      } else if (b === QUOTE) this.inString = true;
      else if (b === 0x5b || b === 0x7b) {
        if (++this.depth > this.limit) return true;
      } else if (b === 0x5d || b === 0x7d) this.depth--;
    }
    return false;
  }
}

const tooDeep = () => {
  const message = `must not be nested more than ${MAX_DEPTH} levels deep`;
  // The rest of the body is not read: the connection closes after the answer.
  return new InvalidRequestError(`body ${message}.`, 'body', { errors: [{ param: 'body', message }] }).withHeader('Connection', 'close');
};

/** The body of a JSON route passes through a NestingScanner as it streams in: too deep, and reading stops there. */
function scanNestingWhileReading(fastify: FastifyInstance): void {
  // Synchronous: most requests (every GET) carry no JSON body and pass straight through.
  fastify.addHook('preParsing', (req, _reply, payload, next) => {
    if (declarationOf(req)?.body.kind !== 'json' || !isJson(req.headers['content-type'])) return next(null, payload);
    const scanner = new NestingScanner(MAX_DEPTH);
    const scanned = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        done(scanner.exceeded(chunk) ? tooDeep() : null, chunk);
      },
    });
    payload.on('error', (err) => scanned.destroy(err));
    next(null, payload.pipe(scanned));
  });
}

const isJson = (type: string | undefined) => (type ?? '').split(';')[0].trim().toLowerCase() === 'application/json';

/**
 * Replaces Fastify's application/json parser. A route that declares no body
 * reaches here only with an empty one (the onRequest stage refused any
 * other), which is no body: not the 400 an empty JSON document would be.
 * A body nested deeper than MAX_DEPTH was refused while it was read
 * (NestingScanner). Otherwise the body is refused when its bytes are not UTF-8 (instead of silently decoding
 * to U+FFFD, which stored "caf\uFFFD" for "caf\xE9"); the decoded text then
 * goes through Fastify's own parser, so bad JSON and __proto__/constructor
 * poisoning answer as before.
 */
export function installStrictJsonParser(fastify: FastifyInstance): void {
  scanNestingWhileReading(fastify);
  const parseText = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const bytes = body as Buffer;
    if (declarationOf(req)?.body.kind === 'none' && bytes.length === 0) return done(null, undefined);
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
