export { AccountModule } from './account.module.js';
export { AccountService } from './account.service.js';
export type { CreateOrgInput, UpdateOrgInput } from './account.service.js';
export type { Org } from './org.js';
export { slugify } from './org-rules.js';
export { firmTimezoneJoin } from './firm-timezone.js';
export type { FirmJoin } from './firm-timezone.js';
