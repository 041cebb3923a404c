import { Injectable } from '@nestjs/common';
import { InvalidRequestError } from '../errors/problems.js';
import { CursorCodec } from './cursor.js';

/** Where a page ended: the last row's sort time (ISO 8601 instant) and its id, the tie-breaker. */
export interface KeysetPosition {
  at: string;
  id: string;
}

export interface KeysetPage<T> {
  items: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/**
 * A page from rows fetched with `LIMIT limit + 1`: the first `limit` rows,
 * and whether the extra row existed.
 */
export function splitPage<T>(rows: T[], limit: number): { items: T[]; hasMore: boolean } {
  return { items: rows.slice(0, limit), hasMore: rows.length > limit };
}

const invalidCursor = () =>
  new InvalidRequestError('cursor is not valid; pass next_cursor exactly as the previous page returned it.', 'cursor');

/**
 * Keyset pagination over (time desc, id desc), the order of every cursor
 * list: the cursor is the last row's position, bound to the list's kind and
 * to a fingerprint of its filters and to the firm (CursorCodec), so a cursor
 * reused with other filters, on another list or by another firm is a 400
 * naming `cursor`.
 */
@Injectable()
export class KeysetCursors {
  constructor(private readonly codec: CursorCodec) {}

  /** The position a request's cursor names, or null without a cursor. */
  decode(kind: string, cursor: string | undefined, filters: Record<string, unknown>, firmId: string): KeysetPosition | null {
    if (cursor === undefined) return null;
    const p = this.codec.decode(kind, cursor, filters, firmId);
    if (p.length !== 2 || typeof p[0] !== 'string' || typeof p[1] !== 'string' || Number.isNaN(Date.parse(p[0]))) throw invalidCursor();
    return { at: p[0], id: p[1] };
  }

  /** The page of rows fetched with `LIMIT limit + 1`, with the cursor of the next one. */
  page<T>(
    kind: string,
    rows: T[],
    limit: number,
    scope: { filters: Record<string, unknown>; firmId: string },
    position: (row: T) => KeysetPosition,
  ): KeysetPage<T> {
    const { items, hasMore } = splitPage(rows, limit);
    const last = items[items.length - 1];
    const nextCursor = hasMore && last ? this.encode(kind, position(last), scope.filters, scope.firmId) : null;
    return { items, hasMore, nextCursor };
  }

  /** The cursor naming a position (bound like every cursor): a page's next one, or the console's way back. */
  encode(kind: string, p: KeysetPosition, filters: Record<string, unknown>, firmId: string): string {
    return this.codec.encode(kind, [p.at, p.id], filters, firmId);
  }
}

/** The members every cursor list answers besides its items (`truncated` and `note` are reserved by the spec). */
export function listPageFields(page: KeysetPage<unknown>, asOf: string) {
  return { has_more: page.hasMore, next_cursor: page.nextCursor, as_of: asOf, truncated: false, note: null };
}
