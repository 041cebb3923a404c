export { IdempotencyModule, IdempotencyStageModule } from './idempotency.module.js';
export { IdempotencyService, IDEMPOTENCY_KEY_KEPT_MS, IDEMPOTENCY_LEASE_SECONDS } from './idempotency.service.js';
export { REPLAYED_HEADER } from './idempotency.interceptor.js';
export { requestFingerprint } from './request-fingerprint.js';
export type { IdempotentRequest, IdempotencyClaim } from './idempotency.service.js';
