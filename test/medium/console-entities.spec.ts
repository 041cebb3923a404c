import { DataSource } from 'typeorm';
import { ConsoleSignInService } from '../../src/console';
import { newMediumService, type MediumService } from '../support/medium';

/**
 * The console's entities (src/console/entities) describe exactly the tables its migration makes: TypeORM's own
 * schema builder, run against the migrated database, finds nothing to change in them (a column, type, nullability,
 * key, index or foreign key that differed would be a statement here).
 */
describe('the console entities equal the migrated schema', () => {
  let m: MediumService<ConsoleSignInService>;
  beforeAll(async () => {
    m = await newMediumService(ConsoleSignInService);
  });
  afterAll(() => m.close());

  it('TypeORM would change nothing in console_links and console_sessions', async () => {
    const dataSource = m.module.get(DataSource);
    const tables = dataSource.entityMetadatas.map((e) => e.tableName).filter((name) => name.startsWith('console_'));
    expect(tables.sort()).toEqual(['console_links', 'console_sessions']);
    const pending = (await dataSource.driver.createSchemaBuilder().log()).upQueries.map((q) => q.query);
    expect(pending.filter((q) => /console_/.test(q))).toEqual([]);
  });
});
