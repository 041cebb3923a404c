export { IdempotencyModule } from './idempotency.module.js';
export { IdempotencyService, IDEMPOTENCY_KEY_KEPT_MS, IDEMPOTENCY_LEASE_SECONDS } from './idempotency.service.js';
export { requestFingerprint } from './request-fingerprint.js';
