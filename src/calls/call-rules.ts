import type { PageSize } from '../common/validation/decorators.js';

/** The calls context's rules that integrators are told, each named once: the service and the document read them here. */

/** GET /v1/calls: a page's size. */
export const CALL_PAGE: PageSize = { min: 1, max: 100, default: 20 };

/** GET /v1/calls: the most call ids `ids` may name. */
export const MAX_IDS = 50;

/**
 * Test-mode calls are kept this long after they were made, as events are: a test call is never gone while its
 * call.completed can still be listed. Its transcript, lead, recording and links go with it.
 */
export const TEST_CALL_RETENTION_MS = 30 * 86_400_000;
