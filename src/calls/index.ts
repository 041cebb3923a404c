export { CallsModule } from './calls.module.js';
export { CallsService, parseCallerNumber, toInstant } from './calls.service.js';
export { CALL_PAGE, MAX_IDS, TEST_CALL_RETENTION_MS } from './call-rules.js';
export type { CallRef } from './calls.service.js';
export * from './call-enums.js';
export { IDS_PATTERN } from './dto/list-calls.query.js';
export type * from './call-model.js';
