import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { noSuchEndpoint } from '../errors/framework-errors.js';
import { sendProblem } from '../errors/problem.filter.js';

/** The methods whose routes read a request body. */
export const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The request says a body follows: a Content-Length above zero, or a Transfer-Encoding (chunked). */
export function announcesBody(headers: IncomingHttpHeaders): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && !/^0+$/.test(length.trim());
}

/** A route answers this method and path, and reads a body there. */
export const readsBody = (req: FastifyRequest): boolean => req.routeOptions.url !== undefined && BODY_METHODS.has(req.method);

/**
 * A body sent where no route reads one (no route for the method and path, or
 * a method without a body) is never read: the request is answered as it
 * would be without the body, and the connection closed after the answer so
 * the rest of the body is not waited for. No route: 404 at once (Fastify's
 * not-found route would read the body first, for as long as it trickles);
 * a route that reads no body (a GET) answers as usual, its key checked as
 * usual. Installed after the early auth hook, so two Authorization headers
 * still answer 400 first.
 */
export function closeOnUnreadBodies(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', async (req, reply) => {
    if (!announcesBody(req.headers) || readsBody(req)) return;
    reply.header('connection', 'close');
    if (req.routeOptions.url !== undefined) return;
    sendProblem(reply, req.id, noSuchEndpoint());
    return reply;
  });
}
