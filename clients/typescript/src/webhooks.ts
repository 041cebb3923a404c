// Webhook payload types, from the document's `webhooks` section: one entry per event type, each with
// its own `data` schema. A delivery's body is exactly an event of GET /v1/events.
import type { paths, webhooks } from './schema.js';

/** The event types the document describes (the spec lets more appear: ignore a type you do not know). */
export type WebhookEventType = keyof webhooks;

/** The body POSTed for one event type (verify the raw body before parsing it). */
export type WebhookPayload<T extends WebhookEventType> = webhooks[T]['post']['requestBody']['content']['application/json'];

/**
 * Any known webhook payload: a union discriminated on `type`, so `if (e.type === 'lead.updated')`
 * narrows `e.data` to that event's fields.
 */
export type WebhookEvent = { [T in WebhookEventType]: WebhookPayload<T> }[WebhookEventType];

/**
 * An entry of GET /v1/events (and /v1/events/{event_id}): an event of a known type, with that type's
 * `data`, or an event of a type added later, with free-form `data`. TypeScript cannot narrow such an
 * open union on `type` (the other types' `type` is any string), so check `isKnownEvent(e)` first.
 */
export type EventLogEntry = paths['/v1/events']['get']['responses'][200]['content']['application/json']['events'][number];

/** An entry of a known type: a union discriminated on `type`, as WebhookEvent is. */
export type KnownEventLogEntry = Extract<EventLogEntry, { type: WebhookEventType }>;

/** An entry of a type this client was generated without: ignore it (the spec lets new types appear). */
export type OtherEventLogEntry = Exclude<EventLogEntry, { type: WebhookEventType }>;

/** Every known type, once: adding a type to the document fails the build until it is listed here. */
const KNOWN: Record<WebhookEventType, true> = {
  'call.completed': true,
  'lead.created': true,
  'lead.updated': true,
  'webhook.test': true,
  'webhook_endpoint.disabled': true,
  'webhook_endpoint.enabled': true,
  'webhook_delivery.exhausted': true,
  'webhook_endpoint.recovered': true,
};
export const KNOWN_EVENT_TYPES = Object.keys(KNOWN) as WebhookEventType[];

/** Whether the entry is of a type this client knows; from there `e.type` narrows `e.data`. */
export function isKnownEvent(e: EventLogEntry): e is KnownEventLogEntry {
  return Object.hasOwn(KNOWN, e.type);
}
