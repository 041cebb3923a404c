import { Foundation1763856000000 } from './1763856000000-foundation.js';
import { CallsTranscriptsLeads1763900000000 } from './1763900000000-calls-transcripts-leads.js';
import { EventsCommitOrder1763910000000 } from './1763910000000-events-commit-order.js';
import { Webhooks1763910100000 } from './1763910100000-webhooks.js';
import { MailOutbox1763910200000 } from './1763910200000-mail-outbox.js';
import { Recordings1763920000000 } from './1763920000000-recordings.js';
import { RateLimit1763930000000 } from './1763930000000-rate-limit.js';
import { WebhookSecretRotation1763940000000 } from './1763940000000-webhook-secret-rotation.js';
import { EventsTraceContext1763960500000 } from './1763960500000-events-trace-context.js';
import { TestMode1764000000000 } from './1764000000000-test-mode.js';
import { RateLimitLeases1764050000000 } from './1764050000000-rate-limit-leases.js';
import { TimePartitions1764100000000 } from './1764100000000-time-partitions.js';
import { DeliveryEventTime1764150000000 } from './1764150000000-delivery-event-time.js';
import { TestModeLimits1764200000000 } from './1764200000000-test-mode-limits.js';
import { Console1764250000000 } from './1764250000000-console.js';
import { LogHistories1764300000000 } from './1764300000000-log-histories.js';
import { IdempotencyKeys1764320000000 } from './1764320000000-idempotency-keys.js';
import { WebhookSignatureSchemes1764320100000 } from './1764320100000-webhook-signature-schemes.js';
import { PendingDeliveries1764330000000 } from './1764330000000-pending-deliveries.js';
import { ConsoleReadOnlySessions1764310000000 } from './1764310000000-console-read-only-sessions.js';

/** Every migration, in order. Listed explicitly so the compiled service, the CLI and Jest load the same set. */
export const MIGRATIONS = [
  Foundation1763856000000,
  CallsTranscriptsLeads1763900000000,
  EventsCommitOrder1763910000000,
  Webhooks1763910100000,
  MailOutbox1763910200000,
  Recordings1763920000000,
  RateLimit1763930000000,
  WebhookSecretRotation1763940000000,
  EventsTraceContext1763960500000,
  TestMode1764000000000,
  RateLimitLeases1764050000000,
  TimePartitions1764100000000,
  DeliveryEventTime1764150000000,
  TestModeLimits1764200000000,
  Console1764250000000,
  LogHistories1764300000000,
  ConsoleReadOnlySessions1764310000000,
  IdempotencyKeys1764320000000,
  WebhookSignatureSchemes1764320100000,
  PendingDeliveries1764330000000,
];
