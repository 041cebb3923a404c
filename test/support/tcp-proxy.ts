import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that a test can cut and restore, to
 * show what the service does while its database is unreachable; or in front
 * of an S3 server, counting what the service reads from it.
 */
export class TcpProxy {
  private server: Server | null = null;
  private sockets = new Set<Socket>();
  port = 0;
  /** Bytes the target has sent back through the proxy (to show how much a client really read). */
  bytesFromTarget = 0;
  /** While true, each new connection is closed at once, as a server not yet up would; `refused` counts them. */
  refusing = false;
  refused = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(port = 0): Promise<number> {
    this.server = createServer((client) => {
      if (this.refusing) {
        this.refused++;
        client.destroy();
        return;
      }
      const upstream = createConnection(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      upstream.on('data', (chunk: Buffer) => (this.bytesFromTarget += chunk.length));
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this.port;
  }

  /** Drops every connection and stops accepting new ones. */
  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }

  async restore(): Promise<void> {
    await this.start(this.port);
  }
}
