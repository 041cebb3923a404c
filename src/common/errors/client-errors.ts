import { STATUS_CODES } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { DomainError } from './domain-error.js';
import { problemBody } from './problem.filter.js';
import { InvalidRequestError } from './problems.js';
import { isExemptFromRequestDeadline } from '../http/request-deadline.js';

/** The answer to an error Node's HTTP parser raised: `invalid_request` like any unusable request, with the status that names why. */
function problemFor(code: unknown): { status: number; problem: DomainError } {
  if (code === 'HPE_HEADER_OVERFLOW')
    return { status: 431, problem: new InvalidRequestError('The URL or the request headers are too large.') };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, problem: new InvalidRequestError('The request did not arrive in time.') };
  return { status: 400, problem: new InvalidRequestError('The request could not be read as HTTP.') };
}

/** The answer to the request on this socket has begun: nothing more may be written before it. */
const answering = (socket: Socket): boolean =>
  (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;

/**
 * Errors Node raises outside a request handler (a URL or headers over its
 * limit, a malformed request line, a request not received within
 * HTTP_REQUEST_TIMEOUT_MS): answered as problem+json like every other
 * error, never echoing what was sent, and the connection closed. A
 * recording upload is exempt from the whole-request bound (only inactivity
 * ends it), so its timeout is ignored.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && isExemptFromRequestDeadline(socket)) return;
  if (socket.writable && !answering(socket)) {
    const { status, problem } = problemFor(err.code);
    const requestId = randomUUID();
    const body = JSON.stringify(problemBody(problem, requestId, status));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
