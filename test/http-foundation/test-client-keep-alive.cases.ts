import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { waitFor } from '../support/receiver';

/**
 * The tests' fetch closes an idle connection after 4 s (test/support/test-environment.mjs), whatever keep-alive the
 * server announces: with the server's own 72 s hint, a pooled connection reused just as the server's timer ends
 * fails with ECONNRESET when the shared event loop is held across that moment.
 */
describe("the tests' fetch", () => {
  it('closes an idle connection after 4 s even when the server announces 72 s', async () => {
    const open = new Set<Socket>();
    const server = createServer((_req, res) => res.end('ok'));
    // What the service sets (src/create-app.ts): Node announces it as `Keep-Alive: timeout=72`.
    server.keepAliveTimeout = 72_000;
    server.on('connection', (socket: Socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const startedAt = Date.now();
      const answer = await fetch(`http://127.0.0.1:${port}/`);
      expect(answer.headers.get('keep-alive')).toBe('timeout=72');
      expect(await answer.text()).toBe('ok');
      expect(open.size).toBe(1);
      await waitFor(() => open.size === 0 || undefined, 'the client to close its idle connection', 30_000);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(3_500);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
