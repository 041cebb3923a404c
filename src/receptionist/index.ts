export { ReceptionistModule } from './receptionist.module.js';
export { RECEPTIONIST_ERRORS } from './receptionist.errors.js';
export { ReceptionistService } from './receptionist.service.js';
export type { ReceptionistSetupState } from './receptionist.service.js';
