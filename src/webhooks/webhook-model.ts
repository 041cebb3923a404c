export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export type DeliveryTrigger = 'event' | 'test' | 'redelivery';
export type EndpointStatus = 'enabled' | 'disabled';
export type DisabledReason = 'owner' | 'failing' | 'gone';

/** One attempt, stored exactly as the API shows it (the spec's attempt item). */
export interface DeliveryAttempt {
  at: string;
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
  response_body: string | null;
}

/** What a listing of deliveries is narrowed to. */
export interface DeliveryFilters {
  endpointId?: string;
  eventId?: string;
  status?: DeliveryStatus;
  /** The console's filter (the API lists every type). */
  eventType?: string;
}

/** A keyset position: (created_at, id). */
export interface DeliveryPosition {
  createdAt: Date;
  id: string;
}
