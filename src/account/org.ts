import type { Camelized } from '../database/tables.js';
import type { OrgsRow } from './account.tables.js';

/** A firm as the account context holds it: the `orgs` row, named in camelCase. */
export type OrgRecord = Camelized<OrgsRow>;

/** A firm as other contexts and the CLI see it: read-only; only AccountService changes firms. */
export type Org = Readonly<OrgRecord>;
