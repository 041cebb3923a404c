import { DataSource, type EntityManager } from 'typeorm';
import { isDatabaseUnavailable } from '../../../src/common/errors/db-errors';
import { DatabasePool } from '../../../src/database/database-pool';
import { Database } from '../../../src/database/sql';
import { newMediumService, type MediumService } from '../../support/medium';
import { waitFor } from '../../support/receiver';

/**
 * PostgreSQL ending a session while its transaction sits between two statements
 * (a shutdown or a restart, as the chaos run does every two minutes): TypeORM
 * releases the transaction's connection on the 'error' event, and the next
 * statement fails with QueryRunnerProviderAlreadyReleasedError. That is the
 * database being unavailable (503 with Retry-After), not a defect (500).
 */
describe('a session ended between two statements of a transaction', () => {
  let m: MediumService<Database>;

  beforeAll(async () => {
    m = await newMediumService(Database);
  });

  afterAll(async () => {
    await m?.close();
  });

  /** Runs a transaction whose session another one ends (as a server shutdown does, 57P01) while it is idle in it. */
  const endedMidTransaction = (then: (tx: EntityManager) => Promise<unknown>) =>
    m.module.get(DataSource).transaction(async (tx: EntityManager) => {
      const [{ pid }] = await tx.query('SELECT pg_backend_pid() AS pid');
      await m.sql('SELECT pg_terminate_backend($1)', [pid]);
      await waitFor(() => tx.queryRunner?.isReleased, 'TypeORM to release the ended session', 10_000);
      await then(tx);
    });

  it('fails the next statement with an error read as the database being unavailable', async () => {
    let failure: unknown = null;
    await endedMidTransaction((tx) =>
      tx.query('SELECT 1').catch((err: unknown) => {
        failure = err;
        throw err;
      }),
    ).catch(() => undefined);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/already released/);
    expect(isDatabaseUnavailable(failure)).toBe(true);
  });

  it('fails the COMMIT with an error read as the database being unavailable', async () => {
    const failure: unknown = await endedMidTransaction(() => Promise.resolve()).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/already released/);
    expect(isDatabaseUnavailable(failure)).toBe(true);
  });

  // A server shutdown ends every session, also one whose connection is checked out with no statement running (or
  // released with an error and still closing): node-postgres then emits 'error' on that client, and with no listener
  // the process ends (the chaos run saw an api process exit so). Every pooled connection keeps a listener.
  it('a checked-out connection between statements outlives its session ended, and the pool serves again', async () => {
    const client = await m.module.get(DatabasePool).pool().connect();
    const [{ pid }] = (await client.query('SELECT pg_backend_pid() AS pid')).rows;
    await m.sql('SELECT pg_terminate_backend($1)', [pid]);
    // No statement on it meanwhile: one would take the error itself, and the client would emit nothing.
    await waitFor(
      async () => (await m.sql('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1', [pid]))[0].n === 0,
      'the session to end',
      10_000,
    );
    const failure = await client.query('SELECT 1').then(
      () => null,
      (err: unknown) => err,
    );
    client.release(failure as Error);
    expect(isDatabaseUnavailable(failure)).toBe(true);
    expect(await m.sut.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
