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

/** An entry of GET /v1/events: the same envelope, with `type` open and `data` any of the known shapes or a newer one. */
export type EventLogEntry = paths['/v1/events']['get']['responses'][200]['content']['application/json']['events'][number];
