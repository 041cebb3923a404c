import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A real HTTPS server with a fresh self-signed certificate; counts TCP connections it accepts. */
export async function startSelfSignedHttps(): Promise<{
  port: number;
  connections: () => number;
  requests: () => number;
  close(): Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'whtls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-subj',
        '/CN=localhost',
        '-days',
        '1',
        '-keyout',
        join(dir, 'k.pem'),
        '-out',
        join(dir, 'c.pem'),
      ],
      { stdio: 'ignore' },
    );
    const key = readFileSync(join(dir, 'k.pem'));
    const cert = readFileSync(join(dir, 'c.pem'));
    let connections = 0;
    let requests = 0;
    const sockets = new Set<Socket>();
    const server: Server = createServer({ key, cert }, (_req, res) => {
      requests++;
      res.end('tls ok');
    });
    server.on('connection', (s: Socket) => {
      connections++;
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      port: (server.address() as AddressInfo).port,
      connections: () => connections,
      requests: () => requests,
      close: async () => {
        sockets.forEach((s) => s.destroy());
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
