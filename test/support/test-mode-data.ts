import type { PermissionSet } from '../../src/common/http/scopes';
import { RecordingsService } from '../../src/recordings';
import { WebhookEndpointsService } from '../../src/webhooks';
import { fullCallDocument, nextCallId } from './call-documents';
import type { DataIds, FirmWithData } from './firm-data';
import { waitFor } from './receiver';
import { FIXTURES } from './recordings';
import { join } from 'node:path';
import type { TestApp } from './test-app';
import { createTestKeys, ingestTestCall } from './test-mode';

/** The test-mode twin of a firm's live data (firm-data.ts): the same kinds of rows, made with its test keys. */
export interface TestModeData extends DataIds {
  keys: Record<PermissionSet, string>;
}

async function ok(what: string, r: Promise<{ status: number; text: string; body: any }>, status = 200) {
  const got = await r;
  if (got.status !== status) throw new Error(`${what} failed: ${got.status} ${got.text}`);
  return got.body;
}

/**
 * Two test-mode calls (one with a lead, a transcript and a recording), a recording link, test events, a test-mode
 * webhook endpoint and its deliveries, in the firm that already holds live data. `hookUrl` receives.
 */
export async function addTestModeData(t: TestApp, firm: FirmWithData, hookUrl: string): Promise<TestModeData> {
  const keys = await createTestKeys(t, firm.orgId);
  const { endpoint } = await t.app
    .get(WebhookEndpointsService)
    .create({ orgId: firm.orgId, url: hookUrl, eventTypes: 'call.completed,lead.created,lead.updated', livemode: false });
  const callIds = [nextCallId('call_tm'), nextCallId('call_tm')];
  const leadId = (await ingestTestCall(t, firm.orgId, callIds[0], fullCallDocument())).lead_id as string;
  await ingestTestCall(t, firm.orgId, callIds[1], fullCallDocument({ started_at: '2026-03-01T10:00:00.000Z' }));
  const externalId = `ext-test-${firm.orgId}`;
  await ok(
    'test lead PATCH',
    t.request('PATCH', `/v1/leads/${leadId}`, { key: keys['read-update-leads'], body: { external_id: externalId } }),
  );
  // As the test helpers store one: the pipeline's recording route writes live calls only.
  await t.app.get(RecordingsService).storeFromFile(firm.orgId, callIds[0], join(FIXTURES, 'injury-caller.ogg'), 'test_helper');
  const link = await ok('test recording link', t.request('POST', `/v1/calls/${callIds[0]}/recording-link`, { key: keys.read }), 201);
  const [event] = await t.sql(`SELECT id FROM events WHERE org_id = $1 AND NOT livemode ORDER BY seq LIMIT 1`, [firm.orgId]);
  const delivery = await waitFor(
    async () => (await t.sql(`SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 AND status <> 'pending' LIMIT 1`, [endpoint.id]))[0],
    'a finished test-mode delivery',
    10_000,
  );
  return {
    keys,
    callIds,
    leadId,
    externalId,
    eventId: event.id,
    endpointId: endpoint.id,
    deliveryId: delivery.id,
    linkToken: String(link.url).split('/v1/recordings/')[1],
  };
}
