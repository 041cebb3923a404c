import { randomBytes } from 'node:crypto';
import { WebhookEndpointsService } from '../../src/webhooks';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { createFirm } from '../support/factories';
import type { OtlpReceiver, ExportedSpan } from '../support/otlp-receiver';
import { type Receiver, waitFor } from '../support/receiver';
import type { TestFirm } from '../support/factories';
import type { TestApp } from '../support/test-app';

// What the tracing case files share: an app exporting to a receiver, an incoming trace, and a firm whose lead change
// is delivered to a receiver.

export const HOUR = 3_600_000;

export const traceEnv = (otlp: OtlpReceiver, protocol: string) => ({
  ...internalEnv,
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_SERVICE_NAME: `receptionist-test-${protocol.replace('/', '-')}`,
  // Batches leave every 50 ms instead of 5 s, so the test waits for spans, not for a timer.
  OTEL_BSP_SCHEDULE_DELAY: '50',
});

export const newTraceparent = () => {
  const traceId = randomBytes(16).toString('hex');
  const parentSpanId = randomBytes(8).toString('hex');
  return { traceId, parentSpanId, header: `00-${traceId}-${parentSpanId}-01` };
};

/** The one span matching, once exported. */
export const exported = (otlp: OtlpReceiver, what: string, match: (s: ExportedSpan) => boolean) =>
  waitFor(() => otlp.spans().find(match), what, 10_000);

export const deliveriesTo = (rx: Receiver, path: string, leadId: string) =>
  rx.at(path).filter((r) => {
    const body = JSON.parse(r.body);
    return body.type === 'lead.updated' && body.data.lead_id === leadId;
  });

/** PATCHes the lead with an incoming `traceparent`, as a traced client would; the change is made (200). */
export async function patchLeadInTrace(t: TestApp, firm: TestFirm, leadId: string, traceparent: string): Promise<void> {
  const patched = await t.request('PATCH', `/v1/leads/${leadId}`, {
    key: firm.keys['read-update-leads'],
    body: { status: 'contacted' },
    headers: { traceparent },
  });
  expect(patched.status).toBe(200);
}

/** The lead.updated deliveries of the lead at `path`, once there is one. */
export const delivered = (rx: Receiver, path: string, leadId: string) =>
  waitFor(() => {
    const got = deliveriesTo(rx, path, leadId);
    return got.length > 0 ? got : null;
  }, 'the lead.updated delivery');

export async function firmWithLeadAndEndpoint(t: TestApp, rx: Receiver, path: string) {
  const firm = await createFirm(t.app);
  const created = await t.app.get(WebhookEndpointsService).create({ orgId: firm.orgId, url: rx.url(path), eventTypes: 'lead.updated' });
  const leadId = (await ingestOk(t, firm.orgId, nextCallId(), fullCallDocument())).lead_id as string;
  return { firm, leadId, secret: created.secret };
}
