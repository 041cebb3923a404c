import { Column, Entity, PrimaryColumn } from 'typeorm';
import { columnName, computed, selectList, type RowOf } from './select-list.js';
import type { Queryable } from './sql.js';

@Entity('examples')
class ExampleEntity {
  @PrimaryColumn('uuid')
  orgId: string;

  @Column('text')
  status: string;

  @Column('timestamptz', { nullable: true })
  startedAt: Date | null;

  @Column('integer')
  attemptCount: number;

  /** A column named apart from its property: the decorator's name wins over the naming strategy. */
  @Column('text', { name: 'e164' })
  callerNumber: string;

  describe(): string {
    return this.status;
  }
}

declare const db: Queryable;

describe('select lists from entity metadata', () => {
  it('alias each column to its property, each column named as the naming strategy names it', () => {
    expect(String(selectList(ExampleEntity, 'x', ['orgId', 'status', 'startedAt']))).toBe(
      'x.org_id AS "orgId", x.status, x.started_at AS "startedAt"',
    );
    expect(selectList(ExampleEntity, null, ['attemptCount']).sql).toBe('attempt_count AS "attemptCount"');
    expect(selectList(ExampleEntity, 'x', ['callerNumber']).sql).toBe('x.e164 AS "callerNumber"');
    expect(columnName(ExampleEntity, 'attemptCount')).toBe('attempt_count');
  });

  it('name members apart with a prefix, and join lists and computed columns in order', () => {
    const list = selectList(ExampleEntity, 'x', ['status'], 'example')
      .and(computed<{ createdKey: string }>('x.created_at::text AS "createdKey"'))
      .and(selectList(ExampleEntity, 'y', ['orgId']));
    expect(list.sql).toBe('x.status AS "exampleStatus", x.created_at::text AS "createdKey", y.org_id AS "orgId"');
    const row: RowOf<typeof list> = { exampleStatus: 'new', createdKey: '2026-01-01 00:00:00+00', orgId: 'org' };
    expect(Object.keys(row)).toEqual(['exampleStatus', 'createdKey', 'orgId']);
  });

  it('refuse a property that holds no column', () => {
    expect(() => selectList(ExampleEntity, 'x', ['describe' as 'status'])).toThrow('ExampleEntity.describe is not a column');
  });

  // Compile-time facts (the type-check of every spec): each @ts-expect-error fails the build if its line compiles.
  it('type the rows as the entity picked to exactly the listed columns', () => {
    const LIST = selectList(ExampleEntity, 'x', ['orgId', 'startedAt']);
    const reads = async () => {
      const [row] = await db.query(LIST, `SELECT ${LIST} FROM examples x`);
      const started: Date | null = row.startedAt;
      // @ts-expect-error a column left out of the list is a member the rows lack
      const status: string = row.status;
      return [started, status];
    };
    // @ts-expect-error a property the entity does not have (a renamed one) is not a column of it
    const renamed = () => selectList(ExampleEntity, 'x', ['state']);
    // @ts-expect-error a method is not a column
    const method = () => selectList(ExampleEntity, 'x', ['describe']);
    expect([typeof reads, typeof renamed, typeof method]).toEqual(['function', 'function', 'function']);
  });
});
