import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { SpanKind, Tracing, type Span } from '../common/tracing/tracing.js';
import { AppConfig } from '../config/app-config.js';
import { toEnvelope, type EventEnvelope } from '../events/index.js';
import { deliveryBody } from './delivery-body.js';
import type { DeliveryOutcome } from './delivery-rules.js';
import { SecretBox } from './secret-box.js';
import { SigningKeys } from './signing-keys.js';
import { webhookHeaders } from './signing.js';
import type { ClaimedDelivery } from './delivery-claims.repository.js';
import { WebhookSender } from './webhook-sender.js';
import { displayUrl } from './webhook.mapper.js';
import { WebhookMetrics } from './webhook-metrics.js';
import { attemptSpanAttributes, recordAttemptOnSpan, traceHeaders } from './delivery-trace.js';

/** The envelope sent, built from the event's columns the claim read; none when the event is no longer kept. */
function envelopeOf(c: ClaimedDelivery): EventEnvelope | undefined {
  if (c.eventOccurredAt === null || c.eventData === null || c.eventLivemode === null) return undefined;
  return toEnvelope({
    id: c.eventId,
    type: c.eventType,
    occurredAt: c.eventOccurredAt,
    orgId: c.orgId,
    test: c.eventTest === true,
    livemode: c.eventLivemode,
    data: c.eventData,
  });
}

/** One signed POST of a delivery: the body is the event envelope byte for byte, signed with the endpoint's secret. */
@Injectable()
export class DeliveryAttempt {
  private readonly logger = new Logger('WebhookDispatcher');
  private readonly sender: WebhookSender;
  private readonly keys: SigningKeys;
  /** Each attempt is logged at debug only: its fields (the URL parsed for display) are built only then. */
  private readonly logsAttempts: boolean;

  constructor(
    secrets: SecretBox,
    private readonly clock: Clock,
    config: AppConfig,
    private readonly metrics: WebhookMetrics,
    private readonly tracing: Tracing,
  ) {
    this.keys = new SigningKeys(secrets, this.logger);
    this.sender = new WebhookSender({ allowPrivateTargets: config.webhookAllowPrivateTargets });
    this.logsAttempts = config.logsDebug;
  }

  /** What happened to this delivery now: cancelled without sending, or the attempt's result. */
  async run(c: ClaimedDelivery, traceContext: string | null = null): Promise<DeliveryOutcome> {
    if (c.endpointStatus !== 'enabled') return { kind: 'cancelled', at: this.clock.now(), reason: 'endpoint disabled' };
    const envelope = envelopeOf(c);
    if (!envelope) return { kind: 'cancelled', at: this.clock.now(), reason: 'event no longer kept' };
    // A span in the trace of the request that recorded the event (its stored traceparent), however late the attempt.
    const spanOptions = { kind: SpanKind.CLIENT, parent: traceContext, attributes: attemptSpanAttributes(c) };
    const outcome = await this.tracing.inSpan(`webhook deliver ${c.eventType}`, spanOptions, (span) => this.send(c, envelope, span));
    if (outcome.kind === 'attempt') this.metrics.attempted(c, outcome.at, outcome.result);
    return outcome;
  }

  close(): Promise<void> {
    return this.sender.close();
  }

  private async send(c: ClaimedDelivery, envelope: EventEnvelope, span: Span | null): Promise<DeliveryOutcome> {
    const body = deliveryBody(envelope);
    const at = this.clock.now();
    const keys = this.keys.for(c, at);
    if (!keys) {
      const result = { statusCode: null, durationMs: null, error: 'signing secret unavailable', responseBody: null };
      return { kind: 'attempt', at, endedAt: at, result };
    }
    // traceparent is not signed: the signature covers id, timestamp and body only.
    const result = await this.sender.post(c.url, { ...webhookHeaders(keys, envelope.id, at, body), ...traceHeaders(span) }, body);
    recordAttemptOnSpan(span, result);
    // The failure is known only now (up to the 10 s deadline after `at`): retries wait from here.
    const endedAt = this.clock.now();
    if (this.logsAttempts)
      this.logger.debug(
        {
          delivery_id: c.id,
          endpoint: displayUrl(c.url),
          status_code: result.statusCode,
          error: result.error,
          duration_ms: result.durationMs,
        },
        'webhook attempt',
      );
    return { kind: 'attempt', at, endedAt, result };
  }
}
