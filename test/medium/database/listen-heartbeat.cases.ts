import { Logger } from '@nestjs/common';
import { ListenConnection } from '../../../src/database/listen-connection';
import { Database } from '../../../src/database/sql';
import { newMediumService, type MediumService } from '../../support/medium';
import { waitFor } from '../../support/receiver';
import { hold } from '../../support/time';

/**
 * A LISTEN connection whose server stops answering without closing it (a host lost in a failover, a dropped NAT
 * entry): nothing arrives on it, so only its own heartbeat can tell. Here its backend is stopped (SIGSTOP): the socket
 * stays open and nothing answers.
 */
describe('a LISTEN connection whose server stops answering', () => {
  let m: MediumService<Database>;
  beforeAll(async () => {
    m = await newMediumService(Database);
  });
  afterAll(async () => {
    await m?.close();
  });

  it('is dropped at its heartbeat and made again, and says it listens again; a healthy one is kept', async () => {
    const heard: string[] = [];
    let listened = 0;
    const connection = new ListenConnection(
      {
        databaseUrl: m.databaseUrl,
        channel: 'heartbeat_test',
        applicationName: 'heartbeat-test',
        what: 'heartbeat test',
        whileDown: 'nothing',
        maxRetryMs: 500,
        notified: (payload) => heard.push(payload),
        listening: () => listened++,
        outage: () => false,
        // Every 0.2 s; 2 s to answer, which a loaded machine's healthy backend does.
        heartbeat: { everyMs: 200, timeoutMs: 2_000 },
      },
      new Logger('listen-heartbeat-test'),
    );
    const backends = () =>
      m.sql(`SELECT pid FROM pg_stat_activity WHERE application_name = 'heartbeat-test' AND datname = current_database()`);
    connection.start();
    let stopped: number | null = null;
    try {
      await waitFor(() => listened === 1 && connection.listening, 'the LISTEN');
      const [{ pid }] = await backends();
      // About ten heartbeats answered: the same connection, listened to once.
      await hold(2_000);
      expect({ listened, backends: await backends() }).toEqual({ listened: 1, backends: [{ pid }] });

      process.kill(pid, 'SIGSTOP');
      stopped = pid;
      await waitFor(() => listened === 2 && connection.listening, 'the LISTEN made again', 15_000);
      const now = (await backends()).map((b: { pid: number }) => b.pid).filter((p: number) => p !== pid);
      expect(now).toHaveLength(1);
      await m.sql(`SELECT pg_notify('heartbeat_test', 'after')`);
      await waitFor(() => heard.includes('after'), 'the notification on the new connection');
    } finally {
      connection.stop();
      // The old backend then reads the goodbye its client sent and ends.
      if (stopped !== null) process.kill(stopped, 'SIGCONT');
    }
  });
});
