/**
 * The database itself: migrations, the template, partitions and retention, sessions ended mid-transaction, the test
 * helpers, the migration check and a LISTEN connection's heartbeat. Each case keeps its own context or connection:
 * they migrate, drop, delete or end sessions across the whole database.
 */
import './database/template-database.cases';
import './database/time-partitions-migration.cases';
import './database/delivery-event-time-migration.cases';
import './database/pending-deliveries-migration.cases';
import './database/migration-check.cases';
import './database/database-session-ended.cases';
import './database/partition-retention.cases';
import './database/test-data-retention.cases';
import './database/test-helpers.cases';
import './database/history-fence.cases';
import './database/listen-heartbeat.cases';
