export { LeadsModule } from './leads.module.js';
export { LEADS_ERRORS } from './leads.errors.js';
export { LeadsService } from './leads.service.js';
export { LeadWritesService } from './lead-writes.service.js';
export type { LeadChange, LeadChangedBy, LeadChangeRecorder } from './lead-writes.service.js';
export { FIRM_FIELDS } from './lead-patch-rules.js';
export type { FirmField, LeadPatch } from './lead-patch-rules.js';
export { INTAKE_FIELDS, LEAD_CHANGED_BY_KINDS, LEAD_STATUSES, SETTABLE_STATUSES } from './lead-model.js';
export type { LeadFromCall, LeadIntake, LeadStatus } from './lead-model.js';
