import type { PageSize } from '../common/validation/decorators.js';

/**
 * The webhooks context's rules that integrators are told, each named once: the service enforces them and the
 * document's text reads them from here. (Delivery retention is the events' own, EVENT_RETENTION_MS; the retry
 * schedule is configuration, WEBHOOK_RETRY_SCHEDULE.)
 */

/** Test events and resends together, per endpoint, in any window of MANUAL_SENDS_WINDOW_MS. */
export const MANUAL_SENDS_PER_MINUTE = 5;
export const MANUAL_SENDS_WINDOW_MS = 60_000;

/** GET /v1/webhook-deliveries: a page's size. */
export const DELIVERY_PAGE: PageSize = { min: 1, max: 100, default: 20 };
