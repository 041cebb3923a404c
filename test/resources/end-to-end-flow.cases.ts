import { Webhook } from 'standardwebhooks';
import { WebhookEndpointsService } from '../../src/webhooks';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { firmEventsListable } from '../support/events';
import { createFirm, type TestFirm } from '../support/factories';
import { Receiver, waitFor } from '../support/receiver';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * The whole path an integrator sees: the pipeline hands over a call, the firm
 * updates the lead, and the subscriber receives signed notices whose bodies
 * equal what the events log lists, carrying ids and routing facts only.
 */
describe('from ingestion to a verified webhook', () => {
  let t: TestApp;
  let rx: Receiver;
  let firm: TestFirm;
  let secret: string;
  let endpointId: string;

  beforeAll(async () => {
    rx = await Receiver.start();
    t = await startTestApp({ env: { ...internalEnv, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', DASHBOARD_URL: 'https://app.example.com' } });
    firm = await createFirm(t.app);
    const created = await t.app
      .get(WebhookEndpointsService)
      .create({ orgId: firm.orgId, url: rx.url('/hooks'), eventTypes: 'call.completed,lead.created,lead.updated' });
    secret = created.secret;
    endpointId = created.endpoint.id;
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
  });

  const received = (type: string) => rx.at('/hooks').filter((r) => JSON.parse(r.body).type === type);

  it('delivers call.completed, lead.created and lead.updated, signed, equal to the events log, with no caller data', async () => {
    const callId = nextCallId('flow_');
    const ingested = await ingestOk(t, firm.orgId, callId, fullCallDocument({ processing_complete: true }));
    expect(ingested.lead_id).toEqual(expect.any(String));
    const leadId = ingested.lead_id;

    const patch = await t.request('PATCH', `/v1/leads/${leadId}`, {
      key: firm.keys['read-update-leads'],
      body: { status: 'contacted', external_id: 'CRM-77' },
    });
    expect(patch.status).toBe(200);
    expect(patch.body.changed).toBe(true);

    await waitFor(
      () => received('call.completed').length === 1 && received('lead.created').length === 1 && received('lead.updated').length === 1,
      'three deliveries',
      10_000,
    );

    // Each delivery, headers and body, fits its event type's entry in the document's webhooks section, strictly.
    const conformance = await t.conformance();
    expect(
      rx
        .at('/hooks')
        .map((r) => conformance.checkWebhook(r.headers, r.body))
        .sort(),
    ).toEqual(['call.completed', 'lead.created', 'lead.updated']);

    const wh = new Webhook(secret);
    await firmEventsListable(t, firm.orgId);
    const log = await t.get('/v1/events', { key: firm.keys.read, query: { limit: 100 } });
    expect(log.status).toBe(200);
    const byType = (type: string) => log.body.events.find((e: any) => e.type === type);

    for (const type of ['call.completed', 'lead.created', 'lead.updated']) {
      const [got] = received(type);
      const verified = wh.verify(got.body, got.headers as Record<string, string>) as any;
      expect(got.headers['webhook-id']).toBe(verified.id);
      expect(verified).toEqual(byType(type));
      expect(verified).toMatchObject({ id: expect.stringMatching(/^evt_/), org: { id: firm.orgId }, test: false, type });
      // Notices carry ids and routing facts only.
      for (const secretish of ['Jordan', '555-0188', '5550188', '555-0123', 'jordan@example.com'])
        expect(got.body).not.toContain(secretish);
    }

    expect(byType('call.completed').data).toEqual({
      call_id: callId,
      occurred_at: '2026-03-02T15:04:05.000Z',
      answered: true,
      duration_s: 312,
      category: 'new_injury_lead',
      urgency: 'high',
      outcome: 'connected',
      lead_id: leadId,
      has_recording: false,
      url: `http://api.test/v1/calls/${callId}`,
      dashboard_url: `https://app.example.com/calls/${callId}`,
    });
    expect(byType('lead.created').data).toEqual({
      lead_id: leadId,
      call_id: callId,
      status: 'new',
      category: 'new_injury_lead',
      urgency: 'high',
      url: `http://api.test/v1/leads/${leadId}`,
    });
    expect(byType('lead.updated').data).toEqual({
      lead_id: leadId,
      call_id: callId,
      status: 'contacted',
      previous_status: 'new',
      changes: ['status', 'external_id'],
      changed_by: { kind: 'api_key', id: firm.keyIds['read-update-leads'] },
      url: `http://api.test/v1/leads/${leadId}`,
    });

    // The receiver has the POSTs before the dispatcher has recorded their outcomes: wait for the record.
    const deliveries = await waitFor(async () => {
      const r = await t.get('/v1/webhook-deliveries', { key: firm.keys.read, query: { endpoint_id: endpointId } });
      return r.body.deliveries.every((d: any) => d.status !== 'pending') && r;
    }, 'the three outcomes to be recorded');
    expect(deliveries.body.deliveries).toHaveLength(3);
    for (const d of deliveries.body.deliveries) {
      expect(d).toMatchObject({ status: 'succeeded', attempt_count: 1, trigger: 'event', next_attempt_at: null });
      expect(d.attempts[0]).toMatchObject({ status_code: 200, error: null });
    }
  });

  it('a test delivery fits the webhooks entry of webhook.test, and verifies', async () => {
    // A firm and endpoint of their own: a test delivery to the first test's endpoint would change what it counts.
    const own = await createFirm(t.app);
    const created = await t.app
      .get(WebhookEndpointsService)
      .create({ orgId: own.orgId, url: rx.url('/test-hooks'), eventTypes: 'lead.updated' });
    const sent = await t.request('POST', `/v1/webhook-endpoints/${created.endpoint.id}/test`, { key: own.keys.read });
    expect(sent.status).toBe(202);
    const got = await waitFor(() => rx.at('/test-hooks')[0], 'the test delivery', 10_000);
    expect((await t.conformance()).checkWebhook(got.headers, got.body)).toBe('webhook.test');
    expect(new Webhook(created.secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({
      test: true,
      data: { endpoint_id: created.endpoint.id },
    });
    expect(rx.at('/test-hooks')).toHaveLength(1);
  });

  it('a re-processing that was already complete emits no second call.completed', async () => {
    // A firm of its own, with no endpoint: its deliveries would otherwise reach the other test's receiver.
    const own = await createFirm(t.app);
    const callId = nextCallId('again_');
    await ingestOk(t, own.orgId, callId, fullCallDocument({ processing_complete: true, lead: null }));
    await ingestOk(t, own.orgId, callId, fullCallDocument({ processing_complete: true, lead: null, duration_s: 400 }));
    await firmEventsListable(t, own.orgId);
    const events = await t.get('/v1/events', { key: own.keys.read, query: { type: 'call.completed', limit: 100 } });
    expect(events.body.events.filter((e: any) => e.data.call_id === callId)).toHaveLength(1);
  });
});
