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
