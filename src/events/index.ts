export { EventsModule } from './events.module.js';
export { EventsService, toEnvelope, EVENT_RETENTION_MS } from './events.service.js';
export type { EventFanOut, EventInput } from './events.service.js';
export { EVENT_DATA_MODELS, EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from './event-catalogue.js';
export type { EventData, EventType, SubscribableEventType } from './event-catalogue.js';
export type { EventEnvelope, RecordedEvent } from './event-types.js';
export { eventWebhooks } from './event-webhooks.openapi.js';
export { EventWaits } from './event-waits.js';
export { EVENTS_CHANNEL } from './events-listener.js';
