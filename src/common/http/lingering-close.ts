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
 * Closes connections in stages after an early answer (RFC 9112 section 9.6,
 * nginx's lingering close). Closing at once with the client's bytes still
 * unread makes the kernel send a reset, which reaches the client before it
 * reads the answer (Node's fetch: `write EPIPE`, no answer). Node's HTTP
 * server ends a `Connection: close` exchange with `socket.destroySoon()`; on a
 * socket given to `after`, that public method is replaced by the staged
 * close: FIN after the answer, then the rest of the body read and dropped
 * until it is complete, the client closes, LINGER_MAX_BYTES have arrived or
 * `maxMs` has passed, then the socket is destroyed. One per server: a server
 * that stops ends its lingering connections at once (`endAll`).
 */
export class LingeringClose {
  private readonly lingering = new Set<Socket>();

  /** `maxMs`: at most LINGER_MAX_MS, and never more than the server's idle bound. */
  constructor(private readonly maxMs: number) {}

  /** Called before the answer is written, which must say `Connection: close` (Node calls destroySoon only then). */
  after(req: IncomingMessage): void {
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
      this.lingering.add(socket);
      const deadline = setTimeout(() => closeWhenWritten(socket), this.maxMs).unref();
      socket.once('close', () => {
        clearTimeout(deadline);
        this.lingering.delete(socket);
      });
      req.once('end', () => closeWhenWritten(socket));
      socket.once('end', () => closeWhenWritten(socket));
    };
  }

  /** Ends every lingering connection once its answer is out: the server is stopping, and nobody waits for those bodies. */
  endAll(): void {
    for (const socket of this.lingering) closeWhenWritten(socket);
  }
}
