import type { OrgEntity } from './entities/org.entity.js';

/** A firm as other contexts and the CLI see it: read-only; only AccountService changes firms. */
export type Org = Readonly<OrgEntity>;
