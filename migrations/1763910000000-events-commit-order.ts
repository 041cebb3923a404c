import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The events log pages in commit-safe order (txid, seq), not by seq alone:
 * seq is drawn at insert, so a transaction holding a lower seq can commit
 * after a higher one was already listed. Rows whose txid is below the
 * snapshot's xmin are final; ordering by (txid, seq) and listing only those
 * never skips a late commit (docs/decisions-webhooks.md).
 */
export class EventsCommitOrder1763910000000 implements MigrationInterface {
  name = 'EventsCommitOrder1763910000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX events_org_txid_seq_idx ON events (org_id, txid, seq)`);
    await q.query(`CREATE INDEX events_org_type_txid_seq_idx ON events (org_id, type, txid, seq)`);
    // Superseded by the two above; nothing else reads events by (org_id, seq).
    await q.query(`DROP INDEX IF EXISTS events_org_seq_idx`);
    await q.query(`DROP INDEX IF EXISTS events_org_type_seq_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS events_org_seq_idx ON events (org_id, seq)`);
    await q.query(`CREATE INDEX IF NOT EXISTS events_org_type_seq_idx ON events (org_id, type, seq)`);
    await q.query(`DROP INDEX IF EXISTS events_org_txid_seq_idx`);
    await q.query(`DROP INDEX IF EXISTS events_org_type_txid_seq_idx`);
  }
}
