export { IdempotencyModule } from './idempotency.module.js';
export { IdempotencyService, IDEMPOTENCY_LEASE_SECONDS } from './idempotency.service.js';
export { IDEMPOTENCY_KEY_KEPT_MS } from '../common/http/idempotency-key-header.js';
export { requestFingerprint } from './request-fingerprint.js';
