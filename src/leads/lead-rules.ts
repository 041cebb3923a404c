import type { PageSize } from '../common/validation/decorators.js';

/** The leads context's rules that integrators are told, each named once: the service and the document read them here. */

/** GET /v1/leads: a page's size. */
export const LEAD_PAGE: PageSize = { min: 1, max: 100, default: 20 };

/** PATCH /v1/leads/{lead_id}: `external_id`, one line of at most this many characters (code points). */
export const EXTERNAL_ID_MAX_LENGTH = 200;

/** PATCH /v1/leads/{lead_id}: `status_reason`, at most this many characters (code points). */
export const STATUS_REASON_MAX_LENGTH = 500;
