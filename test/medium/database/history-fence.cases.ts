import { createServer, type AddressInfo } from 'node:net';
import pg from 'pg';
import { isDatabaseUnavailable } from '../../../src/common/errors/db-errors';
import { DatabasePool } from '../../../src/database/database-pool';
import { StaleHistoryError } from '../../../src/database/history-fence';
import { createTestDatabase } from '../../support/database';

/**
 * A stale primary cannot rewind a process (src/database/history-fence.ts): once the pool has reached a newer history
 * of the database, a connection to an older one is refused, new or pooled, as the database being unavailable (503).
 * "Newer" and "older" are made here by renumbering this server's row of log_histories, on a database of its own: the
 * real thing (an old primary restarted behind a stale address) is test/failover.e2e.spec.ts.
 */
describe('the history fence of the pool', () => {
  let url: string;
  let admin: pg.Client;
  let pool: pg.Pool;
  /** This server's history number becomes `history` (as if it were another server of the database's lineage). */
  const serverOn = (history: number) => admin.query(`UPDATE log_histories SET history = $1`, [history]);
  const history = async (client: pg.PoolClient) => (await client.query<{ h: number }>('SELECT log_history() AS h')).rows[0].h;

  beforeAll(async () => {
    url = await createTestDatabase();
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const Pool = new DatabasePool().driver.Pool;
    pool = new Pool({ connectionString: url, max: 4 });
  });
  afterAll(async () => {
    await pool?.end();
    await admin?.end();
  });

  it('admits connections on the newest history seen, and refuses any to an older one, new or pooled', async () => {
    const first = await pool.connect();
    expect(await history(first)).toBe(1);
    // The database moves on (a promotion): a connection made now reaches history 5, which the pool remembers.
    await serverOn(5);
    const second = await pool.connect();
    expect(await history(second)).toBe(5);
    first.release();
    second.release();
    // `first` was admitted on history 1: when the pool hands it out again it is refused and closed.
    const taken = await Promise.allSettled([pool.connect(), pool.connect()]);
    const outcomes = taken.map((t) => (t.status === 'fulfilled' ? 'admitted' : (t.reason as Error).constructor.name));
    for (const t of taken) if (t.status === 'fulfilled') t.value.release();
    expect(outcomes.sort()).toEqual(['StaleHistoryError', 'admitted']);
    expect(pool.totalCount).toBe(1);

    // An old primary behind a stale address: the server is on history 1 again. A new connection is refused.
    await serverOn(1);
    const held = await pool.connect();
    const refused = await pool.connect().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(StaleHistoryError);
    expect(isDatabaseUnavailable(refused)).toBe(true);
    held.release();
    // Back on the newer history (the address now names the promoted server), connections are admitted again.
    await serverOn(5);
    const again = await pool.connect();
    expect(await history(again)).toBe(5);
    again.release();
  });

  it('a server ending the session while the history is read fails that connection, not the process', async () => {
    // The server's lineage function ends its own session: what a restart or a failover does at that moment.
    await admin.query(`ALTER FUNCTION log_lineage() RENAME TO log_lineage_kept`);
    await admin.query(
      `CREATE FUNCTION log_lineage() RETURNS text LANGUAGE sql AS $$ SELECT pg_terminate_backend(pg_backend_pid())::text $$`,
    );
    try {
      // The pool's idle connection in use, so the next one is new.
      const held = await pool.connect();
      const failed = await pool.connect().catch((err: unknown) => err);
      expect(isDatabaseUnavailable(failed)).toBe(true);
      held.release();
    } finally {
      await admin.query(`DROP FUNCTION log_lineage()`);
      await admin.query(`ALTER FUNCTION log_lineage_kept() RENAME TO log_lineage`);
    }
  });

  it('a shutdown`s FATAL in the same packet as the server`s ReadyForQuery fails that connection, not the process', async () => {
    // What a server shutting down can send a connection it has just made ready (seen in the chaos run: the process
    // ended on an 'error' nobody heard): a fake server sends AuthenticationOk, ReadyForQuery and the FATAL at once.
    const message = (type: string, body: Buffer) => {
      const head = Buffer.alloc(5);
      head.write(type, 0, 'latin1');
      head.writeInt32BE(body.length + 4, 1);
      return Buffer.concat([head, body]);
    };
    const fields = ['SFATAL', 'VFATAL', 'C57P01', 'Mterminating connection due to administrator command'].map((f) => `${f}\0`).join('');
    const packet = Buffer.concat([
      message('R', Buffer.from([0, 0, 0, 0])),
      message('Z', Buffer.from('I', 'latin1')),
      message('E', Buffer.from(`${fields}\0`, 'latin1')),
    ]);
    const server = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', () => socket.end(packet));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const Pool = new DatabasePool().driver.Pool;
      const shutting = new Pool({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, user: 'x', database: 'x', max: 1 });
      const failed = await shutting.connect().catch((err: unknown) => err);
      expect(failed).toBeInstanceOf(Error);
      await shutting.end();
    } finally {
      server.close();
    }
  });

  it('through the pool callback form too (how TypeORM checks connections out)', async () => {
    const held = await pool.connect();
    await serverOn(1);
    // The idle connection is in use, so this one is new: made to a server on history 1.
    const err = await new Promise<Error | undefined>((resolve) => pool.connect((e, _client, done) => (done(), resolve(e))));
    expect(err).toBeInstanceOf(StaleHistoryError);
    await serverOn(5);
    held.release();
  });
});
