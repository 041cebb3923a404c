import { CALLER_NUMBER_FORM, CALLER_NUMBER_MESSAGE, PHONE_FORM_PATTERN } from '../../common/phone.js';
import { QueryCursor, QueryDateTime, QueryEnum, QueryFilterText, QueryPageSize, QueryPattern } from '../../common/validation/decorators.js';
import { LEAD_STATUSES } from '../lead-model.js';
import { LEAD_PAGE } from '../lead-rules.js';

export class ListLeadsQuery {
  @QueryEnum('status', LEAD_STATUSES, 'Only leads with this status.') status?: string;
  @QueryDateTime('from', 'Captured at or after.') from?: string;
  @QueryDateTime('to', 'Captured before.') to?: string;
  @QueryDateTime('updated_since', "Leads whose updated_at is at or after it. Poll from the previous run's first-page as_of.")
  updated_since?: string;
  @QueryFilterText('call_id', 'The lead captured on that call (one lead or none).') call_id?: string;
  @QueryPattern(
    'caller_number',
    PHONE_FORM_PATTERN,
    `Leads whose phone equals it, compared as a number: ${CALLER_NUMBER_FORM}`,
    CALLER_NUMBER_MESSAGE,
  )
  caller_number?: string;
  @QueryFilterText('external_id', 'Exact match, including case and spacing.') external_id?: string;
  @QueryPageSize(LEAD_PAGE) limit?: number;
  @QueryCursor('next_cursor from the previous page, same filters.') cursor?: string;
}
