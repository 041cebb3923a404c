import { QueryCursor, QueryDateTime, QueryEnum, QueryFilterText, QueryIntRange } from '../../common/validation/decorators.js';
import { LEAD_STATUSES } from '../lead-model.js';

const PHONE = 'caller_number must be a phone number';

export class ListLeadsQuery {
  @QueryEnum('status', LEAD_STATUSES, 'Only leads with this status.') status?: string;
  @QueryDateTime('from', 'Captured at or after.') from?: string;
  @QueryDateTime('to', 'Captured before.') to?: string;
  @QueryDateTime('updated_since', "Leads whose updated_at is at or after it. Poll from the previous run's first-page as_of.")
  updated_since?: string;
  @QueryFilterText('call_id', 'The lead captured on that call (one lead or none).') call_id?: string;
  @QueryFilterText('caller_number', 'Leads whose phone equals it: E.164, or a 10-digit US number in common formats (no + means US).', PHONE)
  caller_number?: string;
  @QueryFilterText('external_id', 'Exact match, including case and spacing.') external_id?: string;
  @QueryIntRange('limit', 1, 100, 20, 'Page size, 1 to 100.') limit?: number;
  @QueryCursor('next_cursor from the previous page, same filters.') cursor?: string;
}
