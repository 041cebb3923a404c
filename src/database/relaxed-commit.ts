import type { DataSource, EntityManager } from 'typeorm';

/**
 * A transaction that commits without waiting for its WAL to reach disk
 * (`SET LOCAL synchronous_commit TO OFF`). For writes that may be lost only in
 * a crash of PostgreSQL itself within its WAL writer delay (a fraction of a
 * second), never in a crash of this process: the audit entries of reads,
 * which would otherwise make every GET wait for a disk flush. Changes to
 * calls, leads and events never use it.
 */
export function relaxedCommit<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>, isolation?: 'READ COMMITTED' | 'REPEATABLE READ'): Promise<T> {
  const run = async (manager: EntityManager) => {
    await manager.query('SET LOCAL synchronous_commit TO OFF');
    return work(manager);
  };
  return isolation ? dataSource.transaction(isolation, run) : dataSource.transaction(run);
}
