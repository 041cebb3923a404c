// Webhook payload types. A delivery's body is exactly an event of GET /v1/events, so the type is
// taken from that path's answer; when the document gains a `webhooks` section, derive it from there.
import type { paths } from './schema.js';

type EventList = paths['/v1/events']['get']['responses'][200]['content']['application/json'];
/** The envelope a receiver gets (verify the raw body before parsing it). */
export type WebhookEvent = EventList['events'][number];
export type WebhookEventType = WebhookEvent['type'];
