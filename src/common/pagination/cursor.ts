import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidRequestError } from '../errors/problems.js';

/**
 * Opaque keyset cursors. A cursor carries the last row's sort key and a
 * fingerprint of the filters it was issued for, and is MACed together with
 * the firm it was issued to, so a mangled or hand-made cursor, or one from
 * another firm, is a clean 400 instead of a strange page.
 */
export class CursorCodec {
  constructor(private readonly key: Buffer) {}

  static fingerprint(filters: Record<string, unknown>): string {
    const canonical = JSON.stringify(
      Object.keys(filters)
        .filter((k) => filters[k] !== undefined && filters[k] !== null)
        .sort()
        .map((k) => [k, filters[k]]),
    );
    return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
  }

  encode(kind: string, position: unknown[], filters: Record<string, unknown>, firmId: string): string {
    const payload = Buffer.from(JSON.stringify({ k: kind, p: position, f: CursorCodec.fingerprint(filters) })).toString('base64url');
    return `${payload}.${this.mac(payload, firmId)}`;
  }

  /** Returns the position, or throws a 400 naming `cursor`. */
  decode(kind: string, cursor: string, filters: Record<string, unknown>, firmId: string): unknown[] {
    const [payload, mac] = cursor.split('.');
    const invalid = () =>
      new InvalidRequestError('cursor is not valid; pass next_cursor exactly as the previous page returned it.', 'cursor');
    if (!payload || !mac) throw invalid();
    const expected = Buffer.from(this.mac(payload, firmId));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
    let parsed: { k: string; p: unknown[]; f: string };
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalid();
    }
    if (parsed.k !== kind || !Array.isArray(parsed.p)) throw invalid();
    if (parsed.f !== CursorCodec.fingerprint(filters)) {
      throw new InvalidRequestError(
        'cursor was issued for other filters; repeat the same filters with next_cursor, or start again without a cursor.',
        'cursor',
      );
    }
    return parsed.p;
  }

  private mac(payload: string, firmId: string): string {
    return createHmac('sha256', this.key).update(`${firmId}\n${payload}`).digest('base64url').slice(0, 22);
  }
}
