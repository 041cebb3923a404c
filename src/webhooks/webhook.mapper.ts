import type { WebhookDeliveryDto, WebhookEndpointDto } from './dto/webhook.dto.js';
import type { DeliveryRow } from './webhook-deliveries.repository.js';
import type { WebhookEndpointEntity } from './entities/webhook-endpoint.entity.js';

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The spec's Webhook endpoint, member by member; the secret never leaves. */
export function toEndpointDto(e: WebhookEndpointEntity): WebhookEndpointDto {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    event_types: e.eventTypes,
    status: e.status,
    disabled_reason: e.disabledReason,
    secret_last4: e.secretLast4,
    signature: e.signature,
    public_key: e.publicKey,
    last_success_at: iso(e.lastSuccessAt),
    last_failure_at: iso(e.lastFailureAt),
    failing_since: iso(e.failingSince),
    created_at: e.createdAt.toISOString(),
    livemode: e.livemode,
  };
}

export function toDeliveryDto(d: DeliveryRow): WebhookDeliveryDto {
  return {
    id: d.id,
    endpoint_id: d.endpointId,
    event_id: d.eventId,
    event_type: d.eventType,
    trigger: d.trigger,
    status: d.status,
    attempt_count: d.attemptCount,
    attempts: d.attempts.map((a) => ({
      at: a.at,
      status_code: a.status_code,
      duration_ms: a.duration_ms,
      error: a.error,
      response_body: a.response_body,
    })),
    next_attempt_at: iso(d.nextAttemptAt),
    completed_at: iso(d.completedAt),
    created_at: d.createdAt.toISOString(),
  };
}

/** A URL fit for an email or a log line: no user info, query or fragment (they may carry the receiver's own token). */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
