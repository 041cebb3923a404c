export const EVENT_TYPES = ['call.completed', 'lead.created', 'lead.updated', 'webhook.test'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** What an endpoint may subscribe to (webhook.test goes to its one endpoint only). */
export const SUBSCRIBABLE_EVENT_TYPES = ['call.completed', 'lead.created', 'lead.updated'] as const;
export type SubscribableEventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];

/** The envelope exactly as listed by GET /v1/events and sent to endpoints. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  timestamp: string;
  org: { id: string };
  test: boolean;
  data: Record<string, unknown>;
}

export interface RecordedEvent {
  seq: string;
  orgId: string;
  envelope: EventEnvelope;
}
