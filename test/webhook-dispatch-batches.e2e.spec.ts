import { Database } from '../src/database/sql';
import { DeliveryRecorder } from '../src/webhooks/delivery-recorder';
import { WebhookDeliveriesRepository, type ClaimedDelivery } from '../src/webhooks/webhook-deliveries.repository';
import { WebhookEndpointsService } from '../src/webhooks';
import { newEventId } from '../src/common/ids';
import { createFirm } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';

const DAY = 86_400_000;

/**
 * The dispatcher's batched statements against the real database: the claim
 * reads the event with its delivery, and a batch of results is one UPDATE
 * that writes only where the claim token still matches.
 */
describe('webhook dispatch batches', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  });
  afterAll(() => t.close());

  const repository = () => t.app.get(WebhookDeliveriesRepository);

  /**
   * Two pending deliveries of one event, due a day after the app clock (the
   * running dispatcher, which claims what is due at the clock, leaves them),
   * claimed here as a worker would.
   */
  async function claimTwo(): Promise<{ claimed: ClaimedDelivery[]; eventId: string }> {
    const f = await createFirm(t.app, { publish: false });
    const { endpoint } = await t.app
      .get(WebhookEndpointsService)
      .create({ orgId: f.orgId, url: 'http://127.0.0.1:9/never', eventTypes: 'lead.created' });
    const eventId = newEventId(new Date());
    await t.sql(`INSERT INTO events (id, org_id, type, test, occurred_at, data) VALUES ($1, $2, 'call.completed', false, now(), $3)`, [
      eventId,
      f.orgId,
      { call_id: 'call_batch' },
    ]);
    const due = new Date(t.clock.now().getTime() + DAY);
    const ids = await t.sql(
      `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, next_attempt_at, created_at)
       SELECT gen_random_uuid(), $1, $2, $3, 'call.completed', 'event', 'pending', $4, $4 FROM generate_series(1, 2) RETURNING id`,
      [f.orgId, endpoint.id, eventId, due],
    );
    const claimed = await repository().claim(new Date(due.getTime() + 1), 10, 60);
    expect(claimed.map((c) => c.id).sort()).toEqual(ids.map((r: { id: string }) => r.id).sort());
    return { claimed, eventId };
  }

  it('the claim reads the event to send with its delivery, in the same statement', async () => {
    const { claimed, eventId } = await claimTwo();
    const [event] = await t.sql(`SELECT occurred_at, data FROM events WHERE id = $1`, [eventId]);
    expect(claimed[0]).toMatchObject({
      eventId,
      eventOccurredAt: event.occurred_at,
      eventTest: false,
      eventData: { call_id: 'call_batch' },
    });
  });

  it('one UPDATE records a batch, writing only the results whose claim token still matches', async () => {
    const { claimed } = await claimTwo();
    const [mine, lost] = claimed;
    // The lease of `lost` ran out and another worker claimed it: a new token.
    const [{ claim_token: otherToken }] = await t.sql(
      `UPDATE webhook_deliveries SET claim_token = gen_random_uuid() WHERE id = $1 RETURNING claim_token`,
      [lost.id],
    );
    const at = new Date();
    const attempt = { at: at.toISOString(), status_code: 200, duration_ms: 3, error: null, response_body: 'ok' };
    const succeeded = { status: 'succeeded' as const, attempt, nextAttemptAt: null, completedAt: at };
    const written = await t.app.get(Database).transaction((tx) =>
      repository().applyTransitions(tx, [
        { id: mine.id, claimToken: mine.claimToken, ...succeeded },
        { id: lost.id, claimToken: lost.claimToken, ...succeeded },
      ]),
    );
    expect([...written]).toEqual([mine.id]);
    const rows = await t.sql(
      `SELECT id, status, attempt_count, claim_token FROM webhook_deliveries WHERE id = ANY($1) ORDER BY id = $2 DESC`,
      [[mine.id, lost.id], mine.id],
    );
    expect(rows).toEqual([
      { id: mine.id, status: 'succeeded', attempt_count: 1, claim_token: null },
      { id: lost.id, status: 'pending', attempt_count: 0, claim_token: otherToken },
    ]);
  });

  it('the recorder leaves a result whose claim another worker now holds', async () => {
    const { claimed } = await claimTwo();
    const lost = claimed[1];
    await t.sql(`UPDATE webhook_deliveries SET claim_token = gen_random_uuid() WHERE id = $1`, [lost.id]);
    const at = new Date();
    const result = { statusCode: 500, durationMs: 2, error: null, responseBody: 'no' };
    await t.app.get(DeliveryRecorder).record({ claimed: lost, outcome: { kind: 'attempt', at, endedAt: at, result } });
    const [row] = await t.sql(`SELECT status, attempt_count, attempts FROM webhook_deliveries WHERE id = $1`, [lost.id]);
    expect(row).toEqual({ status: 'pending', attempt_count: 0, attempts: [] });
  });
});
