export { CallsModule } from './calls.module.js';
export { CallsService } from './calls.service.js';
export type { CallRef } from './calls.service.js';
