import type { ServerResponse } from 'node:http';
import { Database } from '../src/database/sql';
import { EventsService } from '../src/events';
import { DeliveryDispatcher, WebhookEndpointsService } from '../src/webhooks';
import { recordEvent } from './support/events';
import { createFirm } from './support/factories';
import { Receiver, waitFor } from './support/receiver';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * The dispatcher records results in batches (one multi-row UPDATE per batch):
 * a result is written only where this worker's claim still holds, so a
 * delivery whose lease another worker took over mid-send stays that worker's.
 */
describe('webhook dispatch batches', () => {
  let t: TestApp;
  let rx: Receiver;

  beforeAll(async () => {
    rx = await Receiver.start();
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
  });

  it('a batch of results writes the ones whose claim still holds and leaves the one another worker took over', async () => {
    const f = await createFirm(t.app, { publish: false });
    const held: ServerResponse[] = [];
    rx.on('/held-claims', (_req, res) => void held.push(res));
    const { endpoint } = await t.app
      .get(WebhookEndpointsService)
      .create({ orgId: f.orgId, url: rx.url('/held-claims'), eventTypes: 'lead.created' });
    const record = () =>
      t.app.get(Database).transaction((m) => recordEvent(t.app.get(EventsService), m, { orgId: f.orgId, type: 'lead.created', data: {} }));
    const events = [(await record()).envelope.id, (await record()).envelope.id];
    await waitFor(() => held.length === 2, 'both deliveries on the wire');

    // The lease of the second ran out meanwhile and another worker claimed it: a new token.
    const [mine, lost] = await t.sql(
      `SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY array_position($2::text[], event_id)`,
      [endpoint.id, events],
    );
    const [{ claim_token: otherToken }] = await t.sql(
      `UPDATE webhook_deliveries SET claim_token = gen_random_uuid() WHERE id = $1 RETURNING claim_token`,
      [lost.id],
    );
    for (const res of held) res.end('ok');
    await waitFor(
      async () => (await t.sql(`SELECT status FROM webhook_deliveries WHERE id = $1`, [mine.id]))[0].status === 'succeeded',
      'the first result recorded',
    );
    await t.app.get(DeliveryDispatcher).idle();

    const rows = await t.sql(
      `SELECT status, attempt_count, jsonb_array_length(attempts) AS attempts, claim_token FROM webhook_deliveries WHERE id = ANY($1) ORDER BY id = $2 DESC`,
      [[mine.id, lost.id], mine.id],
    );
    expect(rows).toEqual([
      { status: 'succeeded', attempt_count: 1, attempts: 1, claim_token: null },
      { status: 'pending', attempt_count: 0, attempts: 0, claim_token: otherToken },
    ]);
  });
});
