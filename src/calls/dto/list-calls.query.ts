import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, ValidateBy } from 'class-validator';
import { QueryBoolean, QueryCursor, QueryDateTime, QueryEnum, QueryFilterText, QueryIntRange } from '../../common/validation/decorators.js';
import { CATEGORIES, OUTCOMES } from '../call-enums.js';

export const MAX_IDS = 50;

/** At most 50 comma-separated ids, none empty. An id longer than any call id is of the form too: it matches nothing and is left out. */
function IdList(name: string, max: number) {
  return ValidateBy({
    name: 'idList',
    validator: {
      validate: (value: unknown) => {
        if (typeof value !== 'string') return false;
        const ids = value.split(',').map((s) => s.trim());
        return ids.length >= 1 && ids.length <= max && ids.every((id) => id.length > 0);
      },
      defaultMessage: () => `${name} must be 1 to ${max} comma-separated call ids`,
    },
  });
}

export class ListCallsQuery {
  @QueryDateTime('from', 'Calls that started at or after it.') from?: string;
  @QueryDateTime('to', 'Calls that started before it.') to?: string;
  @QueryEnum('outcome', OUTCOMES, 'Transfer outcome.') outcome?: string;
  @QueryEnum('category', CATEGORIES, 'Caller category the receptionist chose.') category?: string;
  @QueryBoolean('answered', 'false selects calls where the caller hung up before the receptionist spoke.') answered?: 'true' | 'false';
  @QueryDateTime('updated_since', "Calls whose updated_at is at or after it. Poll from the previous run's first-page as_of.")
  updated_since?: string;
  @QueryFilterText(
    'caller_number',
    "Matches the call's `from`: E.164, or a 10-digit US number in common formats (no + means US).",
    'caller_number must be a phone number',
  )
  caller_number?: string;
  @QueryFilterText('reference', "Matches a reference's key (letters and digits, case-insensitive).") reference?: string;
  @ApiPropertyOptional({ description: 'Up to 50 call_ids, comma-separated; ids matching no call are left out.' })
  @IsOptional()
  @IdList('ids', MAX_IDS)
  ids?: string;
  @QueryIntRange('limit', 1, 100, 20, 'Page size, 1 to 100.') limit?: number;
  @QueryCursor() cursor?: string;
}
