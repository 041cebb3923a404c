import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** Time-ordered, URL-safe id body (48-bit ms time + 80 random bits, Crockford base32). */
export function sortableId(now: Date = new Date()): string {
  let time = now.getTime();
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = CROCKFORD[time % 32] + head;
    time = Math.floor(time / 32);
  }
  const rand = randomBytes(16);
  let tail = '';
  for (let i = 0; i < 16; i++) tail += CROCKFORD[rand[i] % 32];
  return head + tail;
}

export const newEventId = (now?: Date): string => `evt_${sortableId(now)}`;
export const newLeadId = (now?: Date): string => `lead_${sortableId(now)}`;
export const newCallId = (now?: Date): string => `call_${sortableId(now)}`;

/** Ids the service stores as uuid (firms, webhook endpoints and deliveries). */
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** Text ids a client or the pipeline may choose (call_id), and the ones the service makes (lead_...): 1 to 128 plain characters. */
export const PLAIN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
export const EVENT_ID_PATTERN = /^evt_[0-9a-z]{1,64}$/;

/** The one check of an event id, wherever one is accepted (path, `after`, `event_id` filters). */
export const isEventId = (value: unknown): value is string => typeof value === 'string' && EVENT_ID_PATTERN.test(value);
export const eventIdMessage = (param: string) => `${param} must be an event id (evt_...)`;
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_PATTERN.test(value);
export const isPlainId = (value: unknown): value is string => typeof value === 'string' && PLAIN_ID_PATTERN.test(value);
