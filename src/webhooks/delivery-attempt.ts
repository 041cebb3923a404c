import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { AppConfig } from '../config/app-config.js';
import type { EventEnvelope } from '../events/index.js';
import type { DeliveryOutcome } from './delivery-rules.js';
import { SecretBox } from './secret-box.js';
import { signingKey, webhookHeaders } from './signing.js';
import type { ClaimedDelivery } from './webhook-deliveries.repository.js';
import { WebhookSender } from './webhook-sender.js';
import { displayUrl } from './webhook.mapper.js';

/** One signed POST of a delivery: the body is the event envelope byte for byte, signed with the endpoint's secret. */
@Injectable()
export class DeliveryAttempt {
  private readonly logger = new Logger('WebhookDispatcher');
  private readonly sender: WebhookSender;
  /** Opened signing keys by endpoint, kept while the sealed secret is unchanged. */
  private readonly keys = new Map<string, { sealed: string; key: Buffer }>();

  constructor(
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    config: AppConfig,
  ) {
    this.sender = new WebhookSender({ allowPrivateTargets: config.webhookAllowPrivateTargets });
  }

  /** What happened to this delivery now: cancelled without sending, or the attempt's result. */
  async run(c: ClaimedDelivery, envelope: EventEnvelope | undefined): Promise<DeliveryOutcome> {
    if (c.endpointStatus !== 'enabled') return { kind: 'cancelled', at: this.clock.now(), reason: 'endpoint disabled' };
    if (!envelope) return { kind: 'cancelled', at: this.clock.now(), reason: 'event no longer kept' };
    return this.send(c, envelope);
  }

  close(): Promise<void> {
    return this.sender.close();
  }

  private async send(c: ClaimedDelivery, envelope: EventEnvelope): Promise<DeliveryOutcome> {
    const body = JSON.stringify(envelope);
    const key = this.keyFor(c);
    if (!key) {
      const result = { statusCode: null, durationMs: null, error: 'signing secret unavailable', responseBody: null };
      return { kind: 'attempt', at: this.clock.now(), result };
    }
    const at = this.clock.now();
    const result = await this.sender.post(c.url, webhookHeaders(key, envelope.id, at, body), body);
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
    return { kind: 'attempt', at, result };
  }

  private keyFor(c: ClaimedDelivery): Buffer | null {
    const cached = this.keys.get(c.endpointId);
    if (cached && cached.sealed === c.secretEnc) return cached.key;
    try {
      const key = signingKey(this.secrets.open(c.secretEnc, c.endpointId));
      this.keys.set(c.endpointId, { sealed: c.secretEnc, key });
      return key;
    } catch (err) {
      this.logger.error(
        { endpoint_id: c.endpointId, err },
        'the endpoint signing secret cannot be decrypted (was WEBHOOK_SECRET_KEY changed?)',
      );
      return null;
    }
  }
}
