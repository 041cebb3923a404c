import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCHEMA_FILE, generateTypes } from '../../clients/typescript/generate.mjs';
import { createReceptionistClient, isKnownEvent, iterateCalls, type EventLogEntry } from '../../clients/typescript/src/index';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { WebhookEndpointsService } from '../../src/webhooks';
import { createFirm } from '../support/factories';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

describe('typed client (clients/typescript)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await sharedTestApp(internalEnv);
  });

  it('regenerating the types from the running service gives no diff (else: npm run client:generate)', async () => {
    const served = await t.get('/v1/openapi.json');
    expect(served.status).toBe(200);
    expect(await generateTypes(served.text)).toBe(readFileSync(fileURLToPath(SCHEMA_FILE), 'utf8'));
  });

  it('iterates every call across pages and types the events', async () => {
    const f = await createFirm(t.app, { publish: false });
    const ids = await Promise.all([1, 2, 3].map(async () => (await ingestOk(t, f.orgId, nextCallId(), fullCallDocument())).call_id));
    const client = createReceptionistClient(t.baseUrl, f.keys.read);
    // Every answer the client receives is checked against the served document, as request() checks its own.
    client.use({ onResponse: ({ request, response }) => t.check(request.method, request.url, response) });
    const seen: string[] = [];
    // limit is documented as an integer, so the generated query type takes a number.
    for await (const call of iterateCalls(client, { limit: 2 })) seen.push(call.call_id);
    expect(seen.sort()).toEqual([...ids].sort());
    const { data } = await client.GET('/v1/events', { params: { query: {} } });
    const events: EventLogEntry[] = data!.events;
    expect(events.map((e) => e.type)).toContain('call.completed');
    // Every entry the service sends today is of a known type; one of a type added later is not taken for one.
    expect(events.filter((e) => !isKnownEvent(e))).toEqual([]);
    expect(isKnownEvent({ ...events[0], type: 'call.transcribed', data: {} } as EventLogEntry)).toBe(false);
  });

  it('sends each POST with an Idempotency-Key and retries it with the same one: a test whose answer was lost is made once', async () => {
    const f = await createFirm(t.app, { publish: false });
    const { endpoint } = await t.app
      .get(WebhookEndpointsService)
      .create({ orgId: f.orgId, url: 'https://hooks.example.com/client-retry', eventTypes: 'lead.created' });
    const sent: (string | null)[] = [];
    let attempts = 0;
    const client = createReceptionistClient(t.baseUrl, f.keys.read, {
      // The first attempt reaches the service and runs, but its answer is lost on the way back.
      fetch: async (request) => {
        sent.push(request.headers.get('idempotency-key'));
        const response = await t.check(request.method, request.url, await fetch(request));
        if (++attempts === 1) throw new TypeError('fetch failed: the connection was reset');
        return response;
      },
    });
    const { data, response } = await client.POST('/v1/webhook-endpoints/{endpoint_id}/test', {
      params: { path: { endpoint_id: endpoint.id } },
    });
    expect(response.status).toBe(202);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]).toBe(sent[0]);
    const made = await t.sql(`SELECT id FROM webhook_deliveries WHERE endpoint_id = $1`, [endpoint.id]);
    expect(made).toEqual([{ id: data!.delivery.id }]);
    // A key the caller gives is kept; a GET carries none.
    await client.POST('/v1/webhook-endpoints/{endpoint_id}/test', {
      params: { path: { endpoint_id: endpoint.id }, header: { 'Idempotency-Key': 'mine-1' } },
    });
    expect(sent.slice(2)).toEqual(['mine-1']);
    await client.GET('/v1/webhook-endpoints');
    expect(sent.slice(3)).toEqual([null]);
  });
});
