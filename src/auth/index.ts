export { AuthModule, AccessGuardModule } from './auth.module.js';
export { ApiKeyService, KEY_PREFIX, TEST_KEY_PREFIX } from './api-key.service.js';
export type { ApiKeySummary } from './api-key.service.js';
export { installEarlyAuth } from './early-auth.hook.js';
export { requireBearerToken } from './internal-token.js';
export { KeyStanding } from './key-standing.service.js';
export { readPageWithKeyStanding, readWithKeyStanding } from './key-standing.js';
export type { KeyCaller, KeyStandingRow, PageWithStanding, StandingPageRead, StandingRead, WithStanding } from './key-standing.js';
