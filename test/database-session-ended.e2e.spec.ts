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

  it('fails the next statement with an error read as the database being unavailable', async () => {
    let failure: unknown = null;
    await t.app
      .get(DataSource)
      .transaction(async (m: EntityManager) => {
        const [{ pid }] = await m.query('SELECT pg_backend_pid() AS pid');
        // Another session ends this one while it is idle in its transaction, as a server shutdown does (57P01).
        await t.sql('SELECT pg_terminate_backend($1)', [pid]);
        await waitFor(() => m.queryRunner?.isReleased, 'TypeORM to release the ended session', 10_000);
        await m.query('SELECT 1').catch((err: unknown) => {
          failure = err;
          throw err;
        });
      })
      .catch(() => undefined);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/already released/);
    expect(isDatabaseUnavailable(failure)).toBe(true);
  });
});
