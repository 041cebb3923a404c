import { createConnection, createServer } from 'node:net';

function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

/**
 * The address the service's processes use for their database: a TCP proxy that forwards to one server and can be
 * switched to another, dropping every connection as it does (what a managed database's endpoint does at a
 * failover, or a DNS name that starts to answer with the standby's address).
 */
export class SwitchableProxy {
  constructor(targetPort) {
    this.targetPort = targetPort;
    this.sockets = new Set();
    this.server = createServer((client) => this.forward(client));
  }

  async start() {
    this.port = await listen(this.server);
    return this;
  }

  forward(client) {
    const upstream = createConnection(this.targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  }

  /** Every connection dropped; new ones go to `port`. */
  switchTo(port) {
    this.targetPort = port;
    for (const s of this.sockets) s.destroy();
  }

  close() {
    for (const s of this.sockets) s.destroy();
    return new Promise((r) => this.server.close(r));
  }
}

/**
 * A standby's replication connection to its primary, through a link that delays what the primary sends by `lagMs`
 * (an asynchronous standby a little behind), and can `hold()` it: from then on nothing the primary sends reaches the
 * standby, so every commit after that moment is one a promotion loses. When the primary goes, whatever the link
 * still holds goes with it. The standby's answers (its flush positions) pass at once.
 */
export class LaggingLink {
  constructor(primaryPort, lagMs) {
    this.primaryPort = primaryPort;
    this.lagMs = lagMs;
    this.held = false;
    this.closed = false;
    this.sockets = new Set();
    this.timers = new Set();
    this.server = createServer((standby) => this.forward(standby));
  }

  async start() {
    this.port = await listen(this.server);
    return this;
  }

  forward(standby) {
    if (this.closed) return void standby.destroy();
    const primary = createConnection(this.primaryPort, '127.0.0.1');
    for (const s of [standby, primary]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    standby.on('close', () => primary.destroy());
    primary.on('close', () => standby.destroy());
    standby.pipe(primary);
    primary.on('data', (chunk) => {
      if (this.held) return;
      if (this.lagMs === 0) return void standby.write(chunk);
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (!this.held && !standby.destroyed) standby.write(chunk);
      }, this.lagMs);
      this.timers.add(timer);
    });
  }

  /** Nothing more reaches the standby (what is on its way is dropped too). */
  hold() {
    this.held = true;
  }

  close() {
    this.held = true;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    for (const s of this.sockets) s.destroy();
    return new Promise((r) => this.server.close(r));
  }
}
