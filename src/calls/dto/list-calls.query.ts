import {
  QueryBoolean,
  QueryCursor,
  QueryDateTime,
  QueryEnum,
  QueryFilterText,
  QueryPageSize,
  QueryPattern,
} from '../../common/validation/decorators.js';
import { CALLER_NUMBER_FORM, CALLER_NUMBER_MESSAGE, PHONE_FORM_PATTERN } from '../../common/phone.js';
import { CATEGORIES, OUTCOMES } from '../call-enums.js';
import { CALL_PAGE, MAX_IDS } from '../call-rules.js';

/**
 * 1 to MAX_IDS comma-separated ids, none empty or only spaces (each is trimmed). An id longer than any call id
 * is of the form too: it matches nothing and is left out. No two parts can match the same character.
 */
const ID = '\\s*[^,\\s\\u0000][^,\\u0000]*';
export const IDS_PATTERN = `^${ID}(?:,${ID}){0,${MAX_IDS - 1}}$`;

export class ListCallsQuery {
  @QueryDateTime('from', 'Calls that started at or after it.') from?: string;
  @QueryDateTime('to', 'Calls that started before it.') to?: string;
  @QueryEnum('outcome', OUTCOMES, 'Transfer outcome.') outcome?: string;
  @QueryEnum('category', CATEGORIES, 'Caller category the receptionist chose.') category?: string;
  @QueryBoolean('answered', 'false selects calls where the caller hung up before the receptionist spoke.') answered?: 'true' | 'false';
  @QueryDateTime('updated_since', "Calls whose updated_at is at or after it. Poll from the previous run's first-page as_of.")
  updated_since?: string;
  @QueryPattern('caller_number', PHONE_FORM_PATTERN, `Matches the call's \`from\`: ${CALLER_NUMBER_FORM}`, CALLER_NUMBER_MESSAGE)
  caller_number?: string;
  @QueryFilterText('reference', "Matches a reference's key (letters and digits, case-insensitive).") reference?: string;
  @QueryPattern(
    'ids',
    IDS_PATTERN,
    `Up to ${MAX_IDS} call_ids, comma-separated (spaces around each are ignored); ids matching no call are left out.`,
    `ids must be 1 to ${MAX_IDS} comma-separated call ids`,
  )
  ids?: string;
  @QueryPageSize(CALL_PAGE) limit?: number;
  @QueryCursor() cursor?: string;
}
