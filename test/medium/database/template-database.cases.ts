import pg from 'pg';
import { MIGRATIONS } from '../../../migrations';
import { createTestDatabase } from '../../support/database';

/**
 * The run's template is migrated from migrations/ as they are in the working tree (the global setup loads the
 * TypeScript sources, not dist/): a migration added or edited without a rebuild is what every test runs against.
 */
describe('the template database', () => {
  it('carries exactly the migrations the sources list, in order', async () => {
    const client = new pg.Client({ connectionString: await createTestDatabase() });
    await client.connect();
    try {
      const applied = (await client.query(`SELECT name FROM migrations ORDER BY id`)).rows.map((r) => r.name as string);
      expect(applied).toEqual(MIGRATIONS.map((M) => new M().name));
    } finally {
      await client.end();
    }
  });
});
