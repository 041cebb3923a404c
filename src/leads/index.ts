export { LeadsModule } from './leads.module.js';
export { LeadsService } from './leads.service.js';
export { LeadWritesService } from './lead-writes.service.js';
export type { LeadChangedBy } from './lead-writes.service.js';
export type { LeadPatch } from './lead-patch-rules.js';
export { INTAKE_FIELDS, LEAD_STATUSES, SETTABLE_STATUSES } from './lead-model.js';
export type { LeadFromCall, LeadIntake, LeadStatus } from './lead-model.js';
