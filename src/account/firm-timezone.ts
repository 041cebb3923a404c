import { columns } from '../database/columns.js';
import { selectList, type SelectList } from '../database/select-list.js';
import { OrgEntity } from './entities/org.entity.js';

/** The firm's row as another context's statement joins it: the table under an alias, and its columns read. */
export interface FirmJoin {
  /** `orgs <alias> ON <alias>.id = <firmId>`, for a JOIN. */
  join: string;
  /** The firm's timezone, as `firmTimezone`. */
  columns: SelectList<{ firmTimezone: string }>;
}

/**
 * The firm's timezone, which every answer carries, read by another context's statement with its own rows (auth's
 * standing, key-standing.ts): `orgs` under `alias`, the firm whose id is `firmId` (a column of that statement, or
 * its placeholder). The account context owns the table; the others name none of its columns.
 */
export function firmTimezoneJoin(alias: string, firmId: string): FirmJoin {
  const org = columns(OrgEntity, alias);
  return { join: `orgs ${alias} ON ${org.id} = ${firmId}`, columns: selectList(OrgEntity, alias, ['timezone'], 'firm') };
}
