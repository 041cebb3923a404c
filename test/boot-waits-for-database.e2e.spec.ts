import { createTestDatabase } from './support/database';
import { requestAt } from './support/http';
import { serviceEnv, startService, stopService, type ServiceProcess } from './support/processes';
import { waitFor } from './support/receiver';
import { TcpProxy } from './support/tcp-proxy';

/**
 * A process started before its PostgreSQL accepts connections (started together, or on a loaded machine where a
 * connection outlasts its 3 s bound) waits for it at boot, for the migrations' connection and the app's, rather than
 * exit at the first refusal; once running it serves as usual.
 */
describe('boot: a process waits for its database', () => {
  let proxy: TcpProxy | undefined;
  let api: ServiceProcess | undefined;

  afterAll(async () => {
    if (api) await stopService(api);
    await proxy?.cut();
  });

  it('starts against a database that refuses connections for its first seconds, then serves', async () => {
    const real = new URL(await createTestDatabase());
    proxy = new TcpProxy(real.hostname, Number(real.port));
    proxy.refusing = true;
    const behind = new URL(real);
    behind.port = String(await proxy.start());
    const starting = startService('api', serviceEnv(behind.toString()));
    // Its first two connections are closed at once, as by a server not yet up; then the database is there.
    await waitFor(() => proxy!.refused >= 2, 'the process to try again after its first connection failed', 60_000);
    proxy.refusing = false;
    api = await starting;
    expect((await requestAt(api.baseUrl!, 'GET', '/v1/health')).status).toBe(200);
  });
});
