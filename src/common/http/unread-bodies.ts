import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Server } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { methodNotAllowed, noSuchEndpoint } from '../errors/framework-errors.js';
import { sendProblem } from '../errors/problem.filter.js';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors/problems.js';
import { refuseContentCoding } from './content-coding.js';
import type { LingeringClose } from './lingering-close.js';
import { matchedRoute, type RouteDeclaration } from './route-declaration.js';
import { allowedMethods } from './route-table.js';

/** The methods that can carry a body a route reads. */
export const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The request says a body follows: a Content-Length above zero, or a
 * Transfer-Encoding (chunked). `Content-Length: 0` is no body, whatever its
 * Content-Type says.
 */
export function announcesBody(headers: IncomingHttpHeaders): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && !/^0+$/.test(length.trim());
}

/** The content type of an HTML form's body (a route declared with a form body). */
export const FORM_TYPE = 'application/x-www-form-urlencoded';

const mediaType = (header: string | undefined) => (header ?? '').split(';')[0].trim().toLowerCase();

const declaredLength = (headers: IncomingHttpHeaders): number | undefined => {
  const length = headers['content-length'];
  return length !== undefined && /^\d+$/.test(length.trim()) ? Number(length) : undefined;
};

/**
 * The body stage of onRequest, from the route's declaration, before a byte is
 * read. A streamed body must come in its declared content type (415). A route that takes no body: on a GET the body is left unread and the
 * connection closed after the answer (answered as without it); elsewhere it
 * is refused, 415 when its type is one no route takes, else 413. A JSON route
 * refuses a Content-Length over its own limit (a chunked body is counted
 * against the same limit as it is read: Fastify's route bodyLimit, set from
 * the declaration in route-table.ts).
 */
export function admitBody(req: FastifyRequest, reply: FastifyReply, d: RouteDeclaration): void {
  if (d.body.kind === 'stream' && mediaType(req.headers['content-type']) !== d.body.contentType) {
    throw new UnsupportedMediaTypeError(`Send the request body with Content-Type: ${d.body.contentType}.`);
  }
  if (!announcesBody(req.headers)) return;
  if (d.body.kind !== 'none') refuseContentCoding(req.headers);
  if (d.body.kind === 'json' || d.body.kind === 'form') {
    const length = declaredLength(req.headers);
    if (length !== undefined && length > d.body.maxBytes) throw tooLarge(d.body.maxBytes);
    if (d.body.kind === 'form' && mediaType(req.headers['content-type']) !== FORM_TYPE) {
      throw new UnsupportedMediaTypeError(`Send the form as ${FORM_TYPE}.`);
    }
    // Forms have a parser (the console's), which a JSON route must never reach.
    if (d.body.kind === 'json' && mediaType(req.headers['content-type']) === FORM_TYPE) {
      throw new UnsupportedMediaTypeError('Send the body as application/json.');
    }
    return;
  }
  if (d.body.kind !== 'none') return;
  reply.header('connection', 'close');
  if (!BODY_METHODS.has(req.method)) return;
  if (mediaType(req.headers['content-type']) !== 'application/json') {
    throw new UnsupportedMediaTypeError('This endpoint takes no body; send none.');
  }
  throw new PayloadTooLargeError('This endpoint takes no body; send none.');
}

const tooLarge = (maxBytes: number) =>
  new PayloadTooLargeError(`The request body is too large; this endpoint takes at most ${maxBytes} bytes.`);

/**
 * Node answers `Expect: 100-continue` itself unless the server listens for
 * `checkContinue`; this listener passes the request on without the 100, so a
 * client waits until continueIfExpected says it may send the body: after
 * its access and body declaration were checked.
 */
export function holdContinue(server: Server): void {
  server.on('checkContinue', (req, res) => server.emit('request', req, res));
}

/** The request was admitted and its route reads a body: a client waiting on `Expect: 100-continue` may now send it. */
export function continueIfExpected(req: FastifyRequest, reply: FastifyReply, d: RouteDeclaration): void {
  const expect = req.headers.expect;
  if (d.body.kind === 'none' || typeof expect !== 'string' || expect.trim().toLowerCase() !== '100-continue') return;
  if (!reply.raw.headersSent) reply.raw.writeContinue();
}

/**
 * A request no route answers is answered at once, its body (if any) never
 * read (Fastify's not-found route would read it first, for as long as it
 * trickles), and the connection closed so the rest is not waited for: 405
 * with `Allow` when its path has other methods (HEAD on a GET route
 * included), else 404. Installed after the early auth hook, so two
 * Authorization headers still answer 400 first.
 */
export function answerUnroutedRequests(fastify: FastifyInstance): void {
  // Synchronous: it answers (and so does not call done) only for a request no route matched.
  fastify.addHook('onRequest', (req, reply, done) => {
    if (matchedRoute(req)) return done();
    if (announcesBody(req.headers)) reply.header('connection', 'close');
    const allow = allowedMethods(fastify, req.url);
    sendProblem(reply, req.id, allow.length > 0 ? methodNotAllowed(req.method, allow) : noSuchEndpoint());
  });
}

/**
 * An answer that leaves before its request's body has all arrived (refused
 * before the body, a body no route reads, a body over its limit) says
 * `Connection: close`, and its connection closes in stages
 * (lingering-close.ts), so a client still sending reads the answer rather
 * than a reset.
 */
export function closeInStagesAfterEarlyAnswers(fastify: FastifyInstance, lingering: LingeringClose): void {
  // Synchronous: it does something only when a body was announced and has not all arrived.
  fastify.addHook('onSend', (req, reply, payload, done) => {
    if (announcesBody(req.headers) && !req.raw.complete) {
      reply.header('connection', 'close');
      lingering.after(req.raw);
    }
    done(null, payload);
  });
}
