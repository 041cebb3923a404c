import { readFileSync } from 'node:fs';

/** One IPv4 TCP socket of this machine as /proc/net/tcp lists it. */
interface TcpSocket {
  localPort: number;
  remotePort: number;
  /** Bytes written and not yet acknowledged by the peer. */
  txQueue: number;
  /** Bytes received and not yet read by the process that owns the socket. */
  rxQueue: number;
}

function loopbackSockets(): TcpSocket[] {
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((line) => {
      const [, local, remote, , queues] = line.trim().split(/\s+/);
      const [tx, rx] = queues.split(':');
      return {
        localPort: parseInt(local.split(':')[1], 16),
        remotePort: parseInt(remote.split(':')[1], 16),
        txQueue: parseInt(tx, 16),
        rxQueue: parseInt(rx, 16),
      };
    });
}

/**
 * True once the process listening on `serverPort` has read every byte the client socket on `clientPort` sent
 * (Linux: the client's send queue and the server's receive queue are both empty). Node parses what it reads at
 * once, so a request written on a kept-alive connection has then reached the server's HTTP layer.
 */
export function readByServer(clientPort: number, serverPort: number): boolean {
  const sockets = loopbackSockets();
  const client = sockets.find((s) => s.localPort === clientPort && s.remotePort === serverPort);
  const server = sockets.find((s) => s.localPort === serverPort && s.remotePort === clientPort);
  return !!client && !!server && client.txQueue === 0 && server.rxQueue === 0;
}
