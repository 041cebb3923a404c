import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** `value` in Crockford base32, `width` characters, most significant first. */
function base32(value: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = CROCKFORD[value % 32] + out;
    value = Math.floor(value / 32);
  }
  return out;
}

/** `width` random Crockford base32 characters. */
function randomCode(width: number): string {
  const rand = randomBytes(width);
  let out = '';
  for (let i = 0; i < width; i++) out += CROCKFORD[rand[i] % 32];
  return out;
}

/** The 48-bit millisecond time that starts every id the service makes: 10 characters, so ids sort by it. */
const timeCode = (now: Date): string => base32(now.getTime(), 10);

/** Time-ordered, URL-safe id body (48-bit ms time + 80 random bits, Crockford base32). */
export function sortableId(now: Date = new Date()): string {
  return timeCode(now) + randomCode(16);
}

export const newEventId = (now?: Date): string => `evt_${sortableId(now)}`;

/**
 * An event id as the service writes it: `evt_`, its time (10 characters), its position in the log (16, made by the
 * database in the insert: `log_position_code`, the history in 4 characters and the writing transaction in 12), and 6
 * random characters (two events of one transaction in one millisecond). These are the ends the service makes.
 */
export const eventIdEnds = (now: Date): { head: string; tail: string } => ({ head: `evt_${timeCode(now)}`, tail: randomCode(6) });

/** Where an event stood in the log, as its id carries it. */
export interface CarriedPosition {
  history: number;
  /** The writing transaction's id (an xid8, as decimal text). */
  txid: string;
}

/** What an event id the service made says of its event: when, and (ids made since positions were carried) where. */
export interface EventIdReading {
  madeAt: Date;
  position: CarriedPosition | null;
}

const decode32 = (code: string): bigint => [...code].reduce((n, c) => n * 32n + BigInt(CROCKFORD.indexOf(c)), 0n);

/** Reads an id of either shape the service has made (26 or 32 characters after `evt_`); null for any other. */
export function readEventId(id: string): EventIdReading | null {
  const body = id.startsWith('evt_') ? id.slice(4) : '';
  if ((body.length !== 26 && body.length !== 32) || ![...body].every((c) => CROCKFORD.includes(c))) return null;
  const madeAt = new Date(Number(decode32(body.slice(0, 10))));
  if (body.length === 26) return { madeAt, position: null };
  return { madeAt, position: { history: Number(decode32(body.slice(10, 14))), txid: decode32(body.slice(14, 26)).toString() } };
}
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
