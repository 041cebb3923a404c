import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Behaviour = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export const behaviours = {
  status:
    (code: number, text = 'ok', headers: Record<string, string> = {}): Behaviour =>
    (_req, res) => {
      res.writeHead(code, { 'content-type': 'text/plain', ...headers });
      res.end(text);
    },
  /** Never answers. */
  hang: (): Behaviour => () => undefined,
  slow:
    (ms: number): Behaviour =>
    (_req, res) => {
      setTimeout(() => {
        res.writeHead(200);
        res.end('slow ok');
      }, ms);
    },
  /** 200, then an endless body; counts what was written before the client went away. */
  huge:
    (stats: { written: number; closed: boolean }): Behaviour =>
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (!res.destroyed && stats.written < 512 * 1024 * 1024) {
          stats.written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.on('close', () => (stats.closed = true));
      pump();
    },
  /** Drops the connection without an answer. */
  reset: (): Behaviour => (req) => {
    req.socket.destroy();
  },
};

/**
 * A real HTTP receiver on 127.0.0.1. Each path can be given a behaviour
 * (default: 200 "ok"); everything received is recorded in order.
 */
export class Receiver {
  readonly received: Received[] = [];
  private readonly routes = new Map<string, Behaviour>();
  private readonly sockets = new Set<Socket>();
  private readonly server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0];
      this.received.push({ path, headers: req.headers, body, at: Date.now() });
      (this.routes.get(path) ?? behaviours.status(200))(req, res, body);
    });
  });
  port = 0;

  static async start(): Promise<Receiver> {
    const r = new Receiver();
    r.server.on('connection', (s) => {
      r.sockets.add(s);
      s.on('close', () => r.sockets.delete(s));
    });
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    r.port = (r.server.address() as AddressInfo).port;
    return r;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  on(path: string, behaviour: Behaviour): this {
    this.routes.set(path, behaviour);
    return this;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Polls until the check returns a truthy value (the dispatcher runs on its own; tests never sleep blindly). */
export async function waitFor<T>(check: () => Promise<T> | T, what: string, timeoutMs = 5000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await check();
    if (last) return last as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
