import { applyDecorators } from '@nestjs/common';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { Nested } from '../../common/validation/nested.js';
import { CATEGORIES, CONVERSATION_STATUSES, LANGUAGES, OUTCOMES, SEGMENTS, SPEAKERS, URGENCIES } from '../../calls/index.js';
import { PLAIN_ID_PATTERN } from '../../common/ids.js';
import { IsCheckablePhone, IsDateTimeWithOffset, Omittable } from './document-decorators.js';

/**
 * One call document as the receptionist pipeline hands it over (PUT
 * /internal/v1/orgs/{org_id}/calls/{call_id} and `call ingest`). Every member
 * is validated; unknown members are refused. Omitted nullable members are
 * null, omitted arrays empty. Derived fields (from_masked, lead_id,
 * lead_captured, has_recording, updated_at, explanation, covers, turn_count,
 * transcript_covers, reference keys) are the service's, never the document's.
 */

export const CALL_ID_PATTERN = PLAIN_ID_PATTERN;

const NullableString = (max = 2000) => applyDecorators(IsOptional(), IsString(), MaxLength(max));
const NullableBoolean = () => applyDecorators(IsOptional(), IsBoolean());
const oneOf = (values: readonly string[]) => IsIn(values as string[], { message: `$property must be one of ${values.join(', ')}` });
const atMost = (n: number) => ArrayMaxSize(n, { message: `$property holds at most ${n} items` });

export class SummaryDoc {
  @NullableString(4000) reason: string | null = null;
  @NullableString(4000) message: string | null = null;
}

export class AboutDoc {
  @IsString() @MinLength(1) @MaxLength(200) name: string;
  @IsString() @MinLength(1) @MaxLength(64) relation: string;
}

export class ReferenceDoc {
  @IsString() @MinLength(1) @MaxLength(200) kind: string;
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @Matches(/[A-Za-z0-9]/, { message: '$property must hold at least one letter or digit' })
  value: string;
  /** Accepted for round-tripping, but always recomputed from value. */
  @IsOptional() @IsString() key?: string;
  @NullableString(200) for_name: string | null = null;
}

export class DetailsDoc {
  @IsArray() @atMost(8) @Nested(() => AboutDoc, { each: true }) about: AboutDoc[] = [];
  @NullableString(200) caller_organization: string | null = null;
  @NullableString(200) asked_for: string | null = null;
  @NullableString(200) message_for: string | null = null;
  @NullableString(500) best_time: string | null = null;
  @IsArray() @atMost(8) @Nested(() => ReferenceDoc, { each: true }) references: ReferenceDoc[] = [];
  @IsDefined() @IsDateTimeWithOffset() generated_at: string;
}

export class ConfirmedDetailDoc {
  @IsString() @MinLength(1) @MaxLength(200) label: string;
  @IsString() @MaxLength(2000) value: string;
  @oneOf(['caller', 'staff']) said_by: string;
}

export class ConversationSummaryDoc {
  @IsArray()
  @atMost(3)
  @IsIn(SEGMENTS as unknown as string[], { each: true, message: `$property items must be among ${SEGMENTS.join(', ')}` })
  covers: string[] = [];
  @IsOptional() @oneOf(CONVERSATION_STATUSES) conversation_status: string | null = null;
  @NullableString(200) staff_name: string | null = null;
  @NullableString(8000) summary: string | null = null;
  @IsString() @MaxLength(4000) outcome: string = '';
  @IsArray() @atMost(8) @IsString({ each: true }) @MaxLength(2000, { each: true }) key_points: string[] = [];
  @IsArray() @atMost(8) @Nested(() => ConfirmedDetailDoc, { each: true }) confirmed_details: ConfirmedDetailDoc[] = [];
  @IsArray() @atMost(8) @IsString({ each: true }) @MaxLength(2000, { each: true }) next_steps: string[] = [];
  @IsDefined() @IsDateTimeWithOffset() generated_at: string;
}

export class UntrustedCallDoc {
  @Omittable() @Nested(() => SummaryDoc) summary: SummaryDoc = new SummaryDoc();
  @NullableString(200) caller_name: string | null = null;
  @IsOptional() @Nested(() => DetailsDoc) details: DetailsDoc | null = null;
  @IsOptional() @Nested(() => ConversationSummaryDoc) conversation_summary: ConversationSummaryDoc | null = null;
}

export class RungDoc {
  @IsString() @MinLength(1) @MaxLength(200) name: string;
  @IsString() @MinLength(1) @MaxLength(64) outcome: string;
}

export class HandlingDoc {
  @IsDefined() @IsInt() @Min(0) trace_version: number;
  @IsOptional() @IsInt() @Min(0) config_version: number | null = null;
  @IsDefined() @IsBoolean() transfer_tool_fired: boolean;
  @IsDefined() @IsInt() @Min(0) fires: number;
  @NullableBoolean() business_hours: boolean | null = null;
  @NullableString(64) category: string | null = null;
  @NullableString(64) rule: string | null = null;
  @NullableBoolean() eligible: boolean | null = null;
  @NullableString(64) ineligible_reason: string | null = null;
  @NullableString(64) requested_person: string | null = null;
  @NullableString(200) requested_person_name: string | null = null;
  @NullableString(64) gate: string | null = null;
  @IsOptional() @IsArray() @ArrayMaxSize(50) @IsString({ each: true }) @MaxLength(200, { each: true }) chain: string[] | null = null;
  @IsOptional() @IsArray() @ArrayMaxSize(50) @Nested(() => RungDoc, { each: true }) rung: RungDoc[] | null = null;
  @NullableBoolean() connected: boolean | null = null;
  @NullableString(64) transfer_reason: string | null = null;
}

export class BriefingDoc {
  @IsInt() @Min(1) attempt: number;
  @IsString() @MinLength(1) @MaxLength(200) name: string;
  @IsString() @MinLength(1) @MaxLength(64) outcome: string;
  @IsInt() @Min(0) start_turn: number;
  @IsInt() @Min(1) turn_count: number;
}

export class TurnDoc {
  @oneOf(SPEAKERS) speaker: string;
  @NullableString(200) speaker_name: string | null = null;
  @oneOf(SEGMENTS) segment: string;
  @IsString() @MaxLength(20_000) text: string;
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) start_s: number | null = null;
}

export const MAX_TURNS = 10_000;

export class TranscriptDoc {
  @IsOptional() @oneOf(CONVERSATION_STATUSES) conversation_status: string | null = null;
  @NullableString(200) connected_name: string | null = null;
  @IsArray() @atMost(20) @Nested(() => BriefingDoc, { each: true }) briefings: BriefingDoc[] = [];
  @NullableString(2000) notice: string | null = null;
  @IsArray() @atMost(MAX_TURNS) @Nested(() => TurnDoc, { each: true }) turns: TurnDoc[] = [];
}

export class LeadUntrustedDoc {
  @NullableString(200) name: string | null = null;
  @NullableString(200) incident_date: string | null = null;
}

/** Every intake field of the spec; each optional and nullable in the document, each present in the API. */
export class IntakeUntrustedDoc {
  @NullableString(200) caller_name: string | null = null;
  @NullableString(64) caller_phone: string | null = null;
  @NullableString(320) caller_email: string | null = null;
  @NullableString(500) referral_source: string | null = null;
  @NullableString(200) relationship_to_injured: string | null = null;
  @NullableString(200) incident_date: string | null = null;
  @NullableString(500) incident_location: string | null = null;
  @NullableString(8000) incident_description: string | null = null;
  @NullableString(2000) fault_belief: string | null = null;
  @NullableString(4000) injuries: string | null = null;
  @NullableString(4000) treatment: string | null = null;
  @NullableString(200) police_report_number: string | null = null;
  @NullableString(200) insurance_carrier: string | null = null;
  @NullableString(200) adverse_party_name: string | null = null;
  @NullableString(8000) narrative_summary: string | null = null;
  @NullableBoolean() hospitalized: boolean | null = null;
  @NullableBoolean() surgery: boolean | null = null;
  @NullableBoolean() police_report_filed: boolean | null = null;
  @NullableBoolean() gave_recorded_statement: boolean | null = null;
  @NullableBoolean() commercial_vehicle_involved: boolean | null = null;
  @NullableBoolean() missed_work: boolean | null = null;
  @NullableBoolean() currently_represented: boolean | null = null;
  @NullableBoolean() conflict_flag: boolean | null = null;
}

export class IntakeDoc {
  @IsOptional() @IsDateTimeWithOffset() extracted_at: string | null = null;
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(1) completeness: number | null = null;
  @Omittable() @Nested(() => IntakeUntrustedDoc) untrusted: IntakeUntrustedDoc = new IntakeUntrustedDoc();
}

export class LeadDoc {
  /** "The checked callback number ... are lead.phone and lead.email": a number the service cannot check is refused. */
  @NullableString(64) @IsCheckablePhone() phone: string | null = null;
  @IsOptional() @Matches(/^\d{1,10}$/, { message: '$property must be 1 to 10 digits' }) phone_extension: string | null = null;
  @NullableString(320) @IsEmail({}, { message: '$property must be a valid email address' }) email: string | null = null;
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(1) intake_completeness: number | null = null;
  @Omittable() @Nested(() => LeadUntrustedDoc) untrusted: LeadUntrustedDoc = new LeadUntrustedDoc();
  @IsOptional() @Nested(() => IntakeDoc) intake: IntakeDoc | null = null;
}

export class CallDocument {
  @IsOptional()
  @Matches(CALL_ID_PATTERN, { message: '$property must be 1 to 128 letters, digits, or _ . : - (starting with a letter or digit)' })
  call_id?: string;
  @IsDefined() @IsDateTimeWithOffset() started_at: string;
  @IsOptional() @IsInt() @Min(0) @Max(86_400 * 7) duration_s: number | null = null;
  @NullableBoolean() answered: boolean | null = null;
  @IsOptional() @oneOf(CATEGORIES) category: string | null = null;
  @IsOptional() @oneOf(URGENCIES) urgency: string | null = null;
  @IsOptional() @oneOf(LANGUAGES) language: string | null = null;
  @IsOptional() @oneOf(OUTCOMES) outcome: string | null = null;
  @NullableString(64) from: string | null = null;
  @NullableString(64) callback_number: string | null = null;
  @IsOptional() @Matches(/^\d{1,10}$/, { message: '$property must be 1 to 10 digits' }) callback_extension: string | null = null;
  @IsDefined() @IsBoolean() processing_complete: boolean;
  @IsOptional() @IsInt() @Min(0) config_version: number | null = null;
  @Omittable() @Nested(() => UntrustedCallDoc) untrusted: UntrustedCallDoc = new UntrustedCallDoc();
  @IsOptional() @Nested(() => HandlingDoc) handling: HandlingDoc | null = null;
  @IsOptional() @Nested(() => TranscriptDoc) transcript: TranscriptDoc | null = null;
  @IsOptional() @Nested(() => LeadDoc) lead: LeadDoc | null = null;
}
