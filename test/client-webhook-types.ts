/**
 * Compiled, never run: `npm run typecheck` (in `npm test`) proves that the
 * client's webhook payloads, and the entries of GET /v1/events once known to
 * be of a known type, narrow on `type`. Each `@ts-expect-error` marks
 * code that must not compile; if it ever compiles (a payload type that no
 * longer narrows, a `data` that became a free map), the unused directive is
 * itself a type error and the typecheck fails.
 */
import {
  isKnownEvent,
  type EventLogEntry,
  type OtherEventLogEntry,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookPayload,
} from '../clients/typescript/src/index';

/** The events about the webhooks themselves narrow like the others: each its own ids and facts. */
type AboutWebhooks = Extract<WebhookEvent, { type: `webhook_endpoint.${string}` | 'webhook_delivery.exhausted' }>;
const isAboutWebhooks = <E extends { type: string }>(e: E): e is Extract<E, { type: AboutWebhooks['type'] }> =>
  e.type.startsWith('webhook_');
function aboutWebhooks(e: AboutWebhooks): string {
  if (e.type === 'webhook_endpoint.disabled') {
    const reason: 'owner' | 'failing' | 'gone' = e.data.reason;
    return `${e.data.endpoint_id} off (${reason})`;
  }
  if (e.type === 'webhook_endpoint.enabled') {
    // @ts-expect-error reason is a webhook_endpoint.disabled field only
    void e.data.reason;
    return `${e.data.endpoint_id} on`;
  }
  if (e.type === 'webhook_delivery.exhausted') {
    const last: number | null = e.data.last_status_code;
    return `${e.data.delivery_id} of ${e.data.event_id} to ${e.data.endpoint_id}: ${last ?? 'no answer'}`;
  }
  return `${e.data.endpoint_id} failing since ${e.data.failing_since}`;
}

/** What a receiver does with a verified body: branch on `type`, then use that event's fields only. */
export function describeDelivery(e: WebhookEvent): string {
  if (e.type === 'lead.updated') {
    const changed: string[] = e.data.changes;
    const by: string = e.data.changed_by.id;
    // @ts-expect-error has_recording is a call.completed field, not a lead.updated one
    void e.data.has_recording;
    return `${e.data.lead_id} ${e.data.previous_status}->${e.data.status} (${changed.join(',')}) by ${by}`;
  }
  if (e.type === 'call.completed') {
    const recorded: boolean = e.data.has_recording;
    // @ts-expect-error changes is a lead.updated field, not a call.completed one
    void e.data.changes;
    return `${e.data.call_id} recorded=${recorded}`;
  }
  if (e.type === 'webhook.test') {
    const test: true = e.test;
    return `${e.data.endpoint_id} test=${test}`;
  }
  if (isAboutWebhooks(e)) return aboutWebhooks(e);
  // Only lead.created is left once the others are handled.
  const created: WebhookPayload<'lead.created'> = e;
  return created.data.status;
}

/** The discriminant is the document's event types, no wider and no narrower. */
export const KNOWN_TYPES: Record<WebhookEventType, true> = {
  'call.completed': true,
  'lead.created': true,
  'lead.updated': true,
  'webhook.test': true,
  'webhook_endpoint.disabled': true,
  'webhook_endpoint.enabled': true,
  'webhook_delivery.exhausted': true,
  'webhook_endpoint.recovered': true,
};

// @ts-expect-error an unknown event type is not a WebhookEventType
export const UNKNOWN_TYPE: WebhookEventType = 'call.deleted';

export function wrongPayload(e: WebhookPayload<'lead.created'>): void {
  // @ts-expect-error a lead.created payload is never a test
  const test: true = e.test;
  void test;
}

/** Every payload, whatever its type, says whether it is live or test-mode data. */
export function modeOf(e: WebhookPayload<WebhookEventType>): 'live' | 'test' {
  const livemode: boolean = e.livemode;
  return livemode ? 'live' : 'test';
}

/**
 * What a poller of GET /v1/events does with an entry: an event of a type added after the client was
 * generated is skipped, then `type` tells which `data` it has, as the document's KnownEvent states.
 */
export function describeListed(e: EventLogEntry): string {
  // @ts-expect-error before the check, data may be any event's: changes is a lead.updated field only
  void e.data.changes;
  if (!isKnownEvent(e)) {
    const other: OtherEventLogEntry = e;
    const data: Record<string, unknown> = other.data;
    return `${other.type}: ${Object.keys(data).join(',')}`;
  }
  if (e.type === 'lead.updated') {
    const changed: string[] = e.data.changes;
    // @ts-expect-error has_recording is a call.completed field, not a lead.updated one
    void e.data.has_recording;
    return changed.join(',');
  }
  if (e.type === 'call.completed') {
    const recorded: boolean = e.data.has_recording;
    // @ts-expect-error status is a lead field, not a call.completed one
    void e.data.status;
    return `recorded=${recorded}`;
  }
  if (e.type === 'webhook.test') {
    const test: true = e.test;
    return `${e.data.endpoint_id} test=${test}`;
  }
  if (isAboutWebhooks(e)) return aboutWebhooks(e);
  // Only lead.created is left once the others are handled.
  const created: WebhookPayload<'lead.created'> = e;
  return created.data.status;
}

/** An entry of the list and a delivery of the same type have the same shape. */
export function sameShape(e: EventLogEntry): WebhookEvent | null {
  return isKnownEvent(e) ? e : null;
}
