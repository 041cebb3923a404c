export { ConsoleModule } from './console.module.js';
export { ConsoleSignInService } from './console-sign-in.service.js';
export type { ConsoleLink } from './console-sign-in.service.js';
export { ConsoleGate } from './console-gate.js';
export { ConsoleViews } from './console-views.js';
export { configureConsoleHttp } from './console-http.js';
