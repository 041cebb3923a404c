export { LeadsModule } from './leads.module.js';
export { LeadsService, parseLeadPatch } from './leads.service.js';
export type { LeadPatch, LeadChangedBy } from './leads.service.js';
export { INTAKE_FIELDS, LEAD_STATUSES, SETTABLE_STATUSES } from './lead-model.js';
export type { LeadFromCall, LeadIntake, LeadStatus } from './lead-model.js';
