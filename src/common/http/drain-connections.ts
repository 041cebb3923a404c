import type { FastifyInstance } from 'fastify';
import { sendProblem } from '../errors/problem.filter.js';
import { ServiceUnavailableError } from '../errors/problems.js';
import type { LingeringClose } from './lingering-close.js';

const SWEEP_MS = 100;

/**
 * On close (SIGTERM), Node stops accepting and ends the sockets idle at that
 * moment, but a keep-alive socket whose request was still in flight stays
 * open after its answer until the keep-alive timeout (72 s), holding the
 * process up. While the server drains, each socket is ended as soon as its
 * request is done, so the process exits once the last answer is out.
 *
 * A request that still arrives while draining (pipelined, or on a kept-alive
 * socket) is answered like any other unavailability: 503 problem+json
 * `service_unavailable` with Retry-After and its request id, and the
 * connection closed, so the client retries on a new one (another process).
 * Fastify's own answer (return503OnClosing, turned off where the app is
 * built) is bare JSON without either.
 */
export function endConnectionsOnceDrained(fastify: FastifyInstance, lingering: LingeringClose): void {
  let draining = false;
  // Synchronous: it answers (and so does not call done) only while draining.
  fastify.addHook('onRequest', (req, reply, done) => {
    if (!draining) return done();
    reply.header('connection', 'close');
    sendProblem(reply, req.id, new ServiceUnavailableError('The service is shutting down. Try again shortly.'));
  });
  fastify.addHook('preClose', (done) => {
    draining = true;
    // A connection lingering after an early answer (lingering-close.ts) is not idle to Node (its body is unfinished).
    const sweep = setInterval(() => {
      fastify.server.closeIdleConnections();
      lingering.endAll();
    }, SWEEP_MS);
    sweep.unref();
    fastify.server.once('close', () => clearInterval(sweep));
    done();
  });
}
