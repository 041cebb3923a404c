import { WebhookEndpointsService } from '../../src/webhooks';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from './call-documents';
import { createFirm, type TestFirm } from './factories';
import { Receiver, waitFor } from './receiver';
import { fixture, tempDataDir, upload } from './recordings';
import { startTestApp, type TestApp } from './test-app';

/** The ids and tokens the API handed one mode's data of a firm. */
export interface DataIds {
  callIds: string[];
  leadId: string;
  /** The lead's external_id, set by the firm through PATCH. */
  externalId: string;
  eventId: string;
  endpointId: string;
  deliveryId: string;
  linkToken: string;
}

/** A firm with data of every kind, and the ids and tokens the API handed it. */
export interface FirmWithData extends TestFirm, DataIds {}

/**
 * Two calls (one with a lead, a transcript and a recording), a recording link,
 * events, a webhook endpoint and its deliveries. The app needs
 * INTERNAL_API_TOKEN and WEBHOOK_ALLOW_PRIVATE_TARGETS; `hookUrl` receives.
 */
export async function createFirmWithData(t: TestApp, hookUrl: string): Promise<FirmWithData> {
  const firm = await createFirm(t.app);
  const { endpoint } = await t.app
    .get(WebhookEndpointsService)
    .create({ orgId: firm.orgId, url: hookUrl, eventTypes: 'call.completed,lead.created,lead.updated' });
  const callIds = [nextCallId('call_iso'), nextCallId('call_iso')];
  const leadId = (await ingestOk(t, firm.orgId, callIds[0], fullCallDocument())).lead_id as string;
  await ingestOk(t, firm.orgId, callIds[1], fullCallDocument({ started_at: '2026-03-01T10:00:00.000Z' }));
  const externalId = `ext-${firm.orgId}`;
  const patched = await t.request('PATCH', `/v1/leads/${leadId}`, {
    key: firm.keys['read-update-leads'],
    body: { external_id: externalId },
  });
  if (patched.status !== 200) throw new Error(`lead PATCH failed: ${patched.status} ${patched.text}`);
  const uploaded = await upload(t, firm.orgId, callIds[0], fixture('injury-caller.ogg'));
  if (uploaded.status !== 200) throw new Error(`recording upload failed: ${uploaded.status} ${uploaded.text}`);
  const link = await t.request('POST', `/v1/calls/${callIds[0]}/recording-link`, { key: firm.keys.read });
  if (link.status !== 201) throw new Error(`recording link failed: ${link.status} ${link.text}`);
  const linkToken = String(link.body.url).split('/v1/recordings/')[1];
  const [event] = await t.sql(`SELECT id FROM events WHERE org_id = $1 ORDER BY seq LIMIT 1`, [firm.orgId]);
  const delivery = await waitFor(
    async () => (await t.sql(`SELECT id FROM webhook_deliveries WHERE org_id = $1 AND status <> 'pending' LIMIT 1`, [firm.orgId]))[0],
    'a finished delivery',
    10_000,
  );
  return {
    ...firm,
    callIds,
    leadId,
    externalId,
    eventId: event.id,
    endpointId: endpoint.id,
    deliveryId: delivery.id,
    linkToken,
  };
}

/** An app of its own holding one firm's data of every kind, with the receiver its endpoint posts to. */
export interface AppWithFirmData {
  t: TestApp;
  rx: Receiver;
  firm: FirmWithData;
  /** Closes the app and the receiver and removes the data folder. */
  close(): Promise<void>;
}

/**
 * The app createFirmWithData needs (the internal routes, private webhook targets, a data folder of its own for the
 * recording), a receiver, and the firm, its endpoint posting to `hookPath` there. `env` adds to the app's
 * environment, `logStream` receives its log lines.
 */
export async function startAppWithFirmData(
  opts: { env?: Record<string, string>; logStream?: NodeJS.WritableStream; hookPath?: string } = {},
): Promise<AppWithFirmData> {
  const data = tempDataDir();
  const rx = await Receiver.start();
  const t = await startTestApp({
    env: { ...internalEnv, DATA_DIR: data.dir, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...opts.env },
    logStream: opts.logStream,
  });
  const firm = await createFirmWithData(t, rx.url(opts.hookPath ?? '/hook'));
  return {
    t,
    rx,
    firm,
    close: async () => {
      await t.close();
      await rx.close();
      data.cleanup();
    },
  };
}
