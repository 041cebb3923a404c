import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { QueryDateTime, QueryEnum, QueryIntRange } from '../../common/validation/decorators.js';
import { LEAD_STATUSES } from '../lead-model.js';

export class ListLeadsQuery {
  @QueryEnum('status', LEAD_STATUSES) status?: string;
  @QueryDateTime('from', 'Captured at or after.') from?: string;
  @QueryDateTime('to', 'Captured before.') to?: string;
  @QueryDateTime('updated_since', "Leads whose updated_at is at or after it. Poll from the previous run's first-page as_of.")
  updated_since?: string;
  @ApiPropertyOptional({ description: 'The lead captured on that call (one lead or none).' })
  @IsOptional()
  @IsString({ message: 'call_id must be a string' })
  @MaxLength(128, { message: 'call_id must be at most 128 characters' })
  call_id?: string;
  @ApiPropertyOptional({ description: 'Leads whose phone equals it: E.164, or a 10-digit US number in common formats (no + means US).' })
  @IsOptional()
  @IsString({ message: 'caller_number must be a phone number' })
  @MaxLength(64, { message: 'caller_number must be a phone number' })
  caller_number?: string;
  @ApiPropertyOptional({ description: 'Exact match, including case and spacing.' })
  @IsOptional()
  @IsString({ message: 'external_id must be a string' })
  @MaxLength(200, { message: 'external_id must be at most 200 characters' })
  external_id?: string;
  @QueryIntRange('limit', 1, 100, 20, 'Page size, 1 to 100.') limit?: number;
  @ApiPropertyOptional({ description: 'next_cursor from the previous page, same filters.' })
  @IsOptional()
  @IsString({ message: 'cursor must be a string' })
  cursor?: string;
}
