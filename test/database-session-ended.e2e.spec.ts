import { DataSource, type EntityManager } from 'typeorm';
import { isDatabaseUnavailable } from '../src/common/errors/db-errors';
import { waitFor } from './support/receiver';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * PostgreSQL ending a session while its transaction sits between two statements
 * (a shutdown or a restart, as the chaos run does every two minutes): TypeORM
 * releases the transaction's connection on the 'error' event, and the next
 * statement fails with QueryRunnerProviderAlreadyReleasedError. That is the
 * database being unavailable (503 with Retry-After), not a defect (500).
 */
describe('a session ended between two statements of a transaction', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t?.close();
  });

  /** Runs a transaction whose session another one ends (as a server shutdown does, 57P01) while it is idle in it. */
  const endedMidTransaction = (then: (m: EntityManager) => Promise<unknown>) =>
    t.app.get(DataSource).transaction(async (m: EntityManager) => {
      const [{ pid }] = await m.query('SELECT pg_backend_pid() AS pid');
      await t.sql('SELECT pg_terminate_backend($1)', [pid]);
      await waitFor(() => m.queryRunner?.isReleased, 'TypeORM to release the ended session', 10_000);
      await then(m);
    });

  it('fails the next statement with an error read as the database being unavailable', async () => {
    let failure: unknown = null;
    await endedMidTransaction((m) =>
      m.query('SELECT 1').catch((err: unknown) => {
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
});
