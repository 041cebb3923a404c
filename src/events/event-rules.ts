import { durationText } from '../common/duration-text.js';
import type { PageSize } from '../common/validation/decorators.js';

/**
 * The rules of the events log, each named once: the service, the retention job and the document's text read them
 * from here.
 */

/** Events, like their deliveries, are kept this long (the spec's retention). */
export const EVENT_RETENTION_MS = 30 * 86_400_000;
/** The retention as the document words it: "30 days". */
export const EVENT_RETENTION_TEXT = durationText(EVENT_RETENTION_MS, 'day');

/** GET /v1/events: a page's size. */
export const EVENT_PAGE: PageSize = { min: 1, max: 100, default: 50 };

/** GET /v1/events: the longest `wait`, in seconds. */
export const MAX_EVENT_WAIT_S = 30;
