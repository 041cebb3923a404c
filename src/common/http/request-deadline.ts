import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

/** All headers must arrive within 20 s, however slowly they trickle in (never longer than the whole-request bound). */
const HEADERS_TIMEOUT_MS = 20_000;
/** How often Node looks for requests past their deadline (its default, 30 s, would let one run 30 s over). */
const CHECK_EVERY_MS = 500;

const EXEMPT = Symbol('exemptFromRequestDeadline');
type Marked = Socket & { [EXEMPT]?: boolean };

/**
 * Bounds the time a whole request (headers and body) may take to arrive:
 * Node answers 408 through the client-error handler (client-errors.ts) and
 * closes the connection. The idle bound (HTTP_IDLE_TIMEOUT_MS) alone let a
 * body trickling one byte a second hold a connection for ever.
 */
export function applyRequestDeadline(server: Server, requestTimeoutMs: number): void {
  server.requestTimeout = requestTimeoutMs;
  server.headersTimeout = Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs);
  // A createServer option, read again when the server starts listening (so set before listen()).
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = CHECK_EVERY_MS;
}

/**
 * The request on this socket may take longer than the whole-request bound:
 * a recording upload streams up to RECORDING_MAX_BYTES and is cut off by
 * inactivity alone. The mark lasts until the request is done.
 */
export function exemptFromRequestDeadline(req: IncomingMessage): void {
  const socket = req.socket as Marked;
  socket[EXEMPT] = true;
  req.once('close', () => {
    socket[EXEMPT] = false;
  });
}

export const isExemptFromRequestDeadline = (socket: Socket): boolean => (socket as Marked)[EXEMPT] === true;
