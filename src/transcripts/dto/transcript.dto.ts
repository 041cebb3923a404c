import { ApiProperty } from '@nestjs/swagger';
import { CONVERSATION_STATUSES, SEGMENTS, SPEAKERS } from '../../calls/index.js';
import { QueryEnum, QueryIntRange } from '../../common/validation/decorators.js';

export const MAX_START_TURN = 1_000_000;

export class TranscriptQuery {
  @QueryIntRange('start_turn', 0, MAX_START_TURN, 0, 'Index of the first turn, counting from 0 (within the segment when segment is set).')
  start_turn?: number;
  @QueryIntRange('limit', 1, 500, undefined, 'Turns per page, 1 to 500; unset returns every remaining turn.') limit?: number;
  @QueryEnum('segment', SEGMENTS, 'Only this part; turn_count, start_turn and next_start_turn then count its turns.')
  segment?: (typeof SEGMENTS)[number];
}

export class BriefingDto {
  @ApiProperty({ minimum: 1 }) attempt: number;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'Unknown values are shown as they are.' }) outcome: string;
  @ApiProperty({ minimum: 0, description: 'Index in the whole transcript, even when segment is set.' }) start_turn: number;
  @ApiProperty({ minimum: 1 }) turn_count: number;
}

export class TurnDto {
  @ApiProperty({ enum: SPEAKERS }) speaker: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'Name on a staff turn, null otherwise.' }) speaker_name: string | null;
  @ApiProperty({ enum: SEGMENTS }) segment: string;
  @ApiProperty() text: string;
  @ApiProperty({ type: 'number', nullable: true, minimum: 0, description: 'Seconds from call start.' }) start_s: number | null;
}

export class TranscriptUntrustedDto {
  @ApiProperty({ type: [TurnDto] }) turns: TurnDto[];
}

export class TranscriptDto {
  @ApiProperty() call_id: string;
  @ApiProperty({ minimum: 0, description: 'Turns in the whole transcript; with segment, turns in that part.' }) turn_count: number;
  @ApiProperty({ minimum: 0 }) start_turn: number;
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: 'integer', nullable: true, minimum: 0 }) next_start_turn: number | null;
  @ApiProperty({ enum: SEGMENTS, isArray: true, description: 'Parts the whole call has, in order.' }) covers: string[];
  @ApiProperty({ enum: CONVERSATION_STATUSES, nullable: true }) conversation_status: string | null;
  @ApiProperty({ type: 'string', nullable: true }) connected_name: string | null;
  @ApiProperty({ type: [BriefingDto] }) briefings: BriefingDto[];
  @ApiProperty({ type: 'string', nullable: true }) notice: string | null;
  @ApiProperty({ type: TranscriptUntrustedDto }) untrusted: TranscriptUntrustedDto;
}
