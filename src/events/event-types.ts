import type { EventType } from './event-catalogue.js';

/** The envelope exactly as listed by GET /v1/events and sent to endpoints. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  timestamp: string;
  org: { id: string };
  test: boolean;
  /** true: live data; false: test-mode data (seen by test keys, sent to test endpoints). */
  livemode: boolean;
  data: Record<string, unknown>;
}

export interface RecordedEvent {
  seq: string;
  orgId: string;
  envelope: EventEnvelope;
}
