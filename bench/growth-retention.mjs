/**
 * Removing the oldest day of each table kept for a limited time, for bench/growth.bench.mjs, the way the service does
 * it: each table's own retention statement (the repositories' batched DELETE, RETENTION_BATCH rows a statement,
 * through the service's deleteInBatches). The audit log has no retention of its own, so it gets the same batched
 * DELETE by `at`.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const dist = (p) => fileURLToPath(new URL(`../dist/src/${p}`, import.meta.url));

/** Rows older than `cutoff` of each retained table go; resolves to the seconds and rows of each. */
export async function dropOneDay(ctx, cutoff) {
  const { deleteInBatches } = require(dist('common/retention/delete-in-batches.js'));
  const { RETENTION_BATCH } = require(dist('common/retention/retention-runner.js'));
  const { EventsRepository } = require(dist('events/events.repository.js'));
  const { WebhookDeliveriesRepository } = require(dist('webhooks/webhook-deliveries.repository.js'));
  const { MailRepository } = require(dist('mail/mail.repository.js'));
  const get = (cls) => ctx.app.get(cls, { strict: false });
  const tables = [
    ['webhook_deliveries', (n) => get(WebhookDeliveriesRepository).deleteOlderThan(cutoff, n)],
    ['events', (n) => get(EventsRepository).deleteOlderThan(cutoff, n)],
    ['mail_outbox', (n) => get(MailRepository).deleteFinishedBefore(cutoff, n)],
    [
      'audit_log',
      async (n) =>
        (
          await ctx.client.query(
            `DELETE FROM audit_log WHERE ctid = ANY(ARRAY(SELECT ctid FROM audit_log WHERE at < $1 LIMIT $2)) AND at < $1`,
            [cutoff, n],
          )
        ).rowCount,
    ],
  ];
  const results = [];
  for (const [table, deleteBatch] of tables) {
    const t0 = process.hrtime.bigint();
    const run = await deleteInBatches(deleteBatch, RETENTION_BATCH);
    results.push({
      table,
      seconds: Number(process.hrtime.bigint() - t0) / 1e9,
      rows: run.deleted,
      how: `batched DELETE (${run.batches} statements)`,
    });
  }
  return results;
}
