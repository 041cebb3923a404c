export { EventsModule } from './events.module.js';
export { EventsService, toEnvelope, EVENT_RETENTION_MS } from './events.service.js';
export type { EventFanOut } from './events.service.js';
export { EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from './event-types.js';
export type { EventEnvelope, EventType, RecordedEvent, SubscribableEventType } from './event-types.js';
export { eventWebhooks } from './event-webhooks.openapi.js';
export { EVENT_DATA_MODELS } from './dto/event-data.dto.js';
