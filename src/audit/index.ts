export { AuditModule } from './audit.module.js';
export { AuditService } from './audit.service.js';
export type { AuditActor, AuditRecord, AuditEntryView } from './audit.service.js';
