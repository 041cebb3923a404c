import type { EventEnvelope } from '../events/index.js';

/** The body of every attempt: the event's envelope as GET /v1/events/{id} answers it, byte for byte (and what it signs). */
export const deliveryBody = (envelope: EventEnvelope): string => JSON.stringify(envelope);
