export { ConsoleModule } from './console.module.js';
export { CONSOLE_ERRORS } from './console.errors.js';
export { ConsoleSignInService } from './console-sign-in.service.js';
export { LINK_LIFETIME_MS as CONSOLE_LINK_LIFETIME_MS } from './console-tokens.js';
export type { ConsoleLink } from './console-sign-in.service.js';
export { ConsoleSessionsService } from './console-sessions.service.js';
export type { ConsoleSessionView } from './console-sessions.service.js';
export { ConsoleGate } from './console-gate.js';
export { ConsoleHttp } from './console-http.js';
