export { AccountModule } from './account.module.js';
export { AccountService, AccountInputError, toE164, slugify } from './account.service.js';
export type { CreateOrgInput, UpdateOrgInput } from './account.service.js';
export { OrgEntity as Org } from './entities/org.entity.js';
