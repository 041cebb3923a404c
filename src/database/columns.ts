import { getMetadataArgsStorage } from 'typeorm';
import { columnName, type ColumnOf } from './select-list.js';

/** Each column property of an entity, as the text a statement names its column by (`c.started_at`). */
export type Columns<E> = { readonly [K in ColumnOf<E>]: string };

/**
 * The column names of an entity's table, for everything a hand-written statement names besides its select list
 * (WHERE, SET, INSERT, ON CONFLICT, ORDER BY): `const c = columns(CallEntity, 'c')` makes `${c.startedAt}` the text
 * `c.started_at`, read from the entity's metadata as `selectList` reads it, so a misspelled or removed property
 * (`c.startedAd`) fails `npm run typecheck`. Without an alias (`columns(CallEntity)`) the names stand alone, as an
 * INSERT's column list and a SET's targets need them; with another (`columns(CallEntity, 'EXCLUDED')`), the
 * names as an upsert reads the row it was offered.
 */
export function columns<E extends object>(entity: abstract new () => E, alias: string | null = null): Columns<E> {
  const qualify = alias === null ? '' : `${alias}.`;
  const names: Record<string, string> = {};
  for (const { propertyName } of getMetadataArgsStorage().filterColumns(entity)) {
    names[propertyName] = `${qualify}${columnName(entity, propertyName as ColumnOf<E>)}`;
  }
  return Object.freeze(names) as Columns<E>;
}
