export { MailModule, MailWorkerModule } from './mail.module.js';
export { MailService } from './mail.service.js';
export type { MailMessage } from './mail.service.js';
export { MailDispatcher } from './mail-dispatcher.service.js';
