import { Tracing } from '../../src/common/tracing/tracing';
import { fullCallDocument, internalEnv, nextCallId } from '../support/call-documents';
import { runCli } from '../support/cli';
import { createFirm } from '../support/factories';
import { OtlpReceiver } from '../support/otlp-receiver';
import { Receiver } from '../support/receiver';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';
import { delivered, firmWithLeadAndEndpoint, newTraceparent, patchLeadInTrace } from './tracing-support';

describe('tracing off (no OTLP endpoint set)', () => {
  let rx: Receiver;
  let t: TestApp;

  beforeAll(async () => {
    rx = await Receiver.start();
    // Its assertions are about its own firm's lead and its own receiver: the group's app for this configuration.
    t = await sharedTestApp({ ...internalEnv, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  });
  afterAll(async () => {
    await rx.close();
  });

  it('starts no SDK, stores no trace context and sends no traceparent; an incoming one is still only logged', async () => {
    expect(t.app.get(Tracing)).toBe(Tracing.OFF);
    const { firm, leadId } = await firmWithLeadAndEndpoint(t, rx, '/off');
    const incoming = newTraceparent();
    await patchLeadInTrace(t, firm, leadId, incoming.header);
    const [first] = await delivered(rx, '/off', leadId);
    expect(first.headers.traceparent).toBeUndefined();
    const [event] = await t.sql(`SELECT trace_context FROM events WHERE type = 'lead.updated' AND data->>'lead_id' = $1`, [leadId]);
    expect(event.trace_context).toBeNull();
  });
});

describe('tracing in the CLI (call ingest records events)', () => {
  let otlp: OtlpReceiver;
  let t: TestApp;

  beforeAll(async () => {
    otlp = await OtlpReceiver.start();
    // Its assertions are about its own firm's events and its own receiver: the group's app for the default configuration.
    t = await sharedTestApp();
  });
  afterAll(async () => {
    await otlp.close();
  });

  it('exports the outbox spans (default protocol, http/protobuf) before it exits, and stores their context with the events', async () => {
    const firm = await createFirm(t.app);
    const callId = nextCallId('cli_trace_');
    const r = await runCli(['call', 'ingest', '--org', firm.orgId, '--file', '-', '--json'], {
      databaseUrl: t.databaseUrl,
      stdin: JSON.stringify({ ...fullCallDocument(), call_id: callId }),
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_SERVICE_NAME: 'receptionist-cli' },
    });
    expect(r.code).toBe(0);
    // No wait: closing the CLI's app flushed the batch before the process exited.
    expect(new Set(otlp.posts.map((p) => p.contentType))).toEqual(new Set(['application/x-protobuf']));
    const events = await t.sql(`SELECT type, trace_context FROM events WHERE org_id = $1 AND data->>'call_id' = $2 ORDER BY seq`, [
      firm.orgId,
      callId,
    ]);
    expect(events.map((e) => e.type).sort()).toEqual(['call.completed', 'lead.created']);
    for (const e of events) {
      const span = otlp.spans().find((s) => s.name === `outbox record ${e.type}` && e.trace_context === `00-${s.traceId}-${s.spanId}-01`);
      expect(span?.resource['service.name']).toBe('receptionist-cli');
    }
  });
});
