import type { Logger } from '@nestjs/common';
import type { Gauge } from 'prom-client';
import { sharedReadGauges } from '../common/ops/shared-read-gauges.js';
import type { Replication } from '../database/replication.js';

/**
 * How durable a commit is, read from the database at scrape time (the same in every process): whether commits wait
 * for a synchronous standby that is connected, and how many physical standbys stream. docs/operations.md says what
 * each means for a failover.
 */
export function replicationGauges(replication: Replication, logger: Logger): Gauge[] {
  return sharedReadGauges(
    () => replication.status(),
    (err) => logger.warn({ err }, 'could not read the replication status for metrics'),
    [
      {
        name: 'db_replication_synchronous',
        help: 'Whether commits wait for a synchronous standby and one is connected (1), so a failover loses nothing acknowledged; else 0.',
        value: (status) => (status.synchronous ? 1 : 0),
      },
      {
        name: 'db_replication_standbys',
        help: 'Physical standbys streaming from the database now (0: a failover has nothing to promote, or this role lacks pg_monitor).',
        value: (status) => status.standbys,
      },
    ],
  );
}
