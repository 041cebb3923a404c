import { ApiProperty } from '@nestjs/swagger';
import { CATEGORIES, CONVERSATION_STATUSES, LANGUAGES, OUTCOMES, SEGMENTS, URGENCIES } from '../call-enums.js';

const nullableString = (description?: string) => ApiProperty({ type: 'string', nullable: true, description });

export class CallSummaryDto {
  @nullableString() reason: string | null;
  @nullableString() message: string | null;
}

export class CallAboutDto {
  @ApiProperty() name: string;
  @ApiProperty({ description: 'client, injured_party, adverse_party, other; other values may be added.' }) relation: string;
}

export class CallReferenceDto {
  @ApiProperty({ description: 'claim_number, policy_number, case_number, police_report_number, other; other values may be added.' })
  kind: string;
  @ApiProperty({ description: 'As given, numbers in digits.' }) value: string;
  @ApiProperty({ description: 'value reduced to its letters and digits, upper-cased.' }) key: string;
  @nullableString('The `about` name the identifier belongs to.') for_name: string | null;
}

export class CallDetailsDto {
  @ApiProperty({ type: [CallAboutDto], maxItems: 8 }) about: CallAboutDto[];
  @nullableString() caller_organization: string | null;
  @nullableString() asked_for: string | null;
  @nullableString() message_for: string | null;
  @nullableString() best_time: string | null;
  @ApiProperty({ type: [CallReferenceDto], maxItems: 8 }) references: CallReferenceDto[];
  @ApiProperty() generated_at: string;
}

export class ConfirmedDetailDto {
  @ApiProperty() label: string;
  @ApiProperty() value: string;
  @ApiProperty({ enum: ['caller', 'staff'] }) said_by: string;
}

export class ConversationSummaryDto {
  @ApiProperty({ enum: SEGMENTS, isArray: true }) covers: string[];
  @ApiProperty({ enum: CONVERSATION_STATUSES, nullable: true }) conversation_status: string | null;
  @nullableString() staff_name: string | null;
  @nullableString() summary: string | null;
  @ApiProperty({ description: 'Empty when summary is null.' }) outcome: string;
  @ApiProperty({ type: [String], maxItems: 8 }) key_points: string[];
  @ApiProperty({ type: [ConfirmedDetailDto], maxItems: 8 }) confirmed_details: ConfirmedDetailDto[];
  @ApiProperty({ type: [String], maxItems: 8 }) next_steps: string[];
  @ApiProperty() generated_at: string;
}

export class CallUntrustedDto {
  @ApiProperty({ type: CallSummaryDto }) summary: CallSummaryDto;
  @nullableString() caller_name: string | null;
  @ApiProperty({ type: CallDetailsDto, nullable: true }) details: CallDetailsDto | null;
}

export class CallDetailUntrustedDto extends CallUntrustedDto {
  @ApiProperty({ type: ConversationSummaryDto, nullable: true, description: 'Only on the detail.' })
  conversation_summary: ConversationSummaryDto | null;
}

export class RungDto {
  @ApiProperty() name: string;
  @ApiProperty({ description: 'connected, no_answer, voicemail, declined, caller_gone, attorney_dropped, error.' }) outcome: string;
}

export class HandlingDto {
  @ApiProperty() trace_version: number;
  @ApiProperty({ type: 'integer', nullable: true }) config_version: number | null;
  @ApiProperty() transfer_tool_fired: boolean;
  @ApiProperty({ minimum: 0 }) fires: number;
  @ApiProperty({ type: 'boolean', nullable: true }) business_hours: boolean | null;
  @nullableString() category: string | null;
  @nullableString() rule: string | null;
  @ApiProperty({ type: 'boolean', nullable: true }) eligible: boolean | null;
  @nullableString() ineligible_reason: string | null;
  @nullableString() requested_person: string | null;
  @nullableString() requested_person_name: string | null;
  @nullableString() gate: string | null;
  @ApiProperty({ type: [String], nullable: true }) chain: string[] | null;
  @ApiProperty({ type: [RungDto], nullable: true }) rung: RungDto[] | null;
  @ApiProperty({ type: 'boolean', nullable: true }) connected: boolean | null;
  @nullableString() transfer_reason: string | null;
}

export class CallDto {
  @ApiProperty({ description: 'Never changes; key the call on it.' }) call_id: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) started_at: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) duration_s: number | null;
  @ApiProperty({ type: 'boolean', nullable: true }) answered: boolean | null;
  @ApiProperty({ enum: CATEGORIES, nullable: true, description: 'Open enum; treat unknown values as other.' }) category: string | null;
  @ApiProperty({ enum: URGENCIES, nullable: true, description: 'Treat unknown values as normal.' }) urgency: string | null;
  @ApiProperty({ enum: LANGUAGES, nullable: true, description: 'Treat unknown values as unknown.' }) language: string | null;
  @ApiProperty({ enum: OUTCOMES, nullable: true, description: 'Treat unknown values as not_attempted.' }) outcome: string | null;
  @ApiProperty({ description: 'True exactly when lead_id is set.' }) lead_captured: boolean;
  @nullableString('Can later become null if the call is re-processed and no lead is found.') lead_id: string | null;
  @nullableString('Legacy: the caller number masked to its last four digits.') from_masked: string | null;
  @nullableString('Caller ID in full (E.164).') from: string | null;
  @nullableString('Callback number as the caller said it.') callback_number: string | null;
  @nullableString('Digits only.') callback_extension: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) updated_at: string | null;
  @ApiProperty() processing_complete: boolean;
  @nullableString() dashboard_url: string | null;
  @ApiProperty() has_recording: boolean;
  @ApiProperty({ type: CallUntrustedDto, nullable: true }) untrusted: CallUntrustedDto | null;
}

export class CallDetailDto extends CallDto {
  @ApiProperty({ type: CallDetailUntrustedDto, nullable: true }) declare untrusted: CallDetailUntrustedDto | null;
  @ApiProperty({ type: HandlingDto, nullable: true, description: 'Informational only; build on outcome and explanation.' })
  handling: HandlingDto | null;
  @ApiProperty({ type: [String], description: 'Plain sentences templated from handling (not AI-generated).' }) explanation: string[];
  @ApiProperty({ type: 'integer', nullable: true }) config_version: number | null;
  @ApiProperty({ enum: SEGMENTS, isArray: true, nullable: true }) transcript_covers: string[] | null;
}

export class CallListDto {
  @ApiProperty({ example: 'America/Chicago' }) timezone: string;
  @ApiProperty({ enum: ['full', 'minimal'], description: 'Always full on the REST API.' }) caller_data: 'full';
  @ApiProperty({ type: [CallDto] }) calls: CallDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: 'string', nullable: true }) next_cursor: string | null;
  @ApiProperty({
    format: 'date-time',
    description:
      "Pass the first page's as_of as the next run's updated_since. At least 30 s before the database clock, and never later than the start of a change still being committed.",
  })
  as_of: string;
  @ApiProperty({ description: 'Always false on the REST API.' }) truncated: boolean;
  @ApiProperty({ type: 'string', nullable: true, description: 'Always null on the REST API.' }) note: string | null;
}

export class CallResponseDto {
  @ApiProperty() timezone: string;
  @ApiProperty({ enum: ['full', 'minimal'] }) caller_data: 'full';
  @ApiProperty({ type: CallDetailDto }) call: CallDetailDto;
}
