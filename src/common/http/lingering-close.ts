import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The most a client may send of a body its answer did not wait for: twice the largest body a route takes (the call
 * document, 8 MiB), so a client that writes a whole large body before it reads still reaches the answer. One more
 * chunk and the connection closes.
 */
export const LINGER_MAX_BYTES = 16 * 1024 * 1024;
/**
 * The longest a connection lingers once its answer is out (nginx's `lingering_time`), and never longer than the idle
 * bound (HTTP_IDLE_TIMEOUT_MS): a sender trickling bytes holds the socket no longer than a silent one may.
 */
export const LINGER_MAX_MS = 30_000;

const LINGERS = Symbol('lingers');
type Marked = Socket & { [LINGERS]?: true };

/** Destroys the socket once what was written to it (the answer, the FIN) is out, as Node's own destroySoon does. */
function closeWhenWritten(socket: Socket): void {
  if (socket.writableFinished) socket.destroy();
  else socket.once('finish', () => socket.destroy());
}

/**
 * Closes the request's connection in stages after its answer (RFC 9112
 * section 9.6, nginx's lingering close). Closing at once with the client's
 * bytes still unread makes the kernel send a reset, which reaches the client
 * before it reads the answer (Node's fetch: `write EPIPE`, no answer). Node's
 * HTTP server ends a `Connection: close` exchange with `socket.destroySoon()`;
 * on this socket that public method is replaced by the staged close: FIN after
 * the answer, then the rest of the body read and dropped until it is complete,
 * the client closes, LINGER_MAX_BYTES have arrived or `maxMs` has passed,
 * then the socket is destroyed. Called before the answer is written, which
 * must say `Connection: close` (Node calls destroySoon only then).
 */
export function closeInStages(req: IncomingMessage, maxMs: number): void {
  const socket = req.socket as Marked;
  if (socket[LINGERS]) return;
  socket[LINGERS] = true;
  let received = 0;
  // Reading (and dropping) starts now: whatever read the body before has given up on it.
  req.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > LINGER_MAX_BYTES) closeWhenWritten(socket);
  });
  // A data listener does not restart a stream that was paused (a reader that stopped, such as the nesting scanner).
  req.resume();
  socket.destroySoon = () => {
    socket.end();
    if (req.complete) return closeWhenWritten(socket);
    const deadline = setTimeout(() => closeWhenWritten(socket), maxMs).unref();
    socket.once('close', () => clearTimeout(deadline));
    req.once('end', () => closeWhenWritten(socket));
    socket.once('end', () => closeWhenWritten(socket));
  };
}
