import { STATUS_CODES } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { ApiError } from './api-error.js';
import { problemBody } from './problem.filter.js';
import { InvalidRequestError } from './problems.js';
import { isExemptFromRequestDeadline } from '../http/request-deadline.js';

/** 431: the request line or headers exceed what Node reads (16 KiB); `invalid_request` like any unusable request. */
class RequestHeadersTooLargeError extends ApiError {
  readonly status = 431;
  readonly code = 'invalid_request' as const;
  constructor() {
    super('The URL or the request headers are too large.');
  }
}

/** 408: the headers did not all arrive in time. */
class RequestTimeoutError extends ApiError {
  readonly status = 408;
  readonly code = 'invalid_request' as const;
  constructor() {
    super('The request did not arrive in time.');
  }
}

function problemFor(code: unknown): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') return new RequestHeadersTooLargeError();
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new RequestTimeoutError();
  return new InvalidRequestError('The request could not be read as HTTP.');
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
    const problem = problemFor(err.code);
    const requestId = randomUUID();
    const body = JSON.stringify(problemBody(problem, requestId));
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
