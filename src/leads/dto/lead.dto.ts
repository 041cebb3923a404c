import { ApiProperty } from '@nestjs/swagger';
import { CATEGORIES, LANGUAGES, URGENCIES } from '../../calls/index.js';
import { Problem } from '../../common/http/openapi.decorators.js';
import { LEAD_STATUSES } from '../lead-model.js';

const nullableString = (description?: string) => ApiProperty({ type: 'string', nullable: true, description });
const nullableBoolean = (description?: string) => ApiProperty({ type: 'boolean', nullable: true, description });

export class LeadUntrustedDto {
  @nullableString() name: string | null;
  @nullableString() incident_date: string | null;
}

export class LeadDto {
  @ApiProperty({ description: 'Key leads on it.' }) lead_id: string;
  @ApiProperty({ description: 'The call it came from.' }) call_id: string;
  @ApiProperty({ format: 'date-time', description: 'When the call happened.' }) captured_at: string;
  @ApiProperty({ enum: LEAD_STATUSES }) status: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Null until the status first changes.' })
  status_updated_at: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: "Moves on any change, including status, and when the lead's call is re-processed.",
  })
  updated_at: string | null;
  @ApiProperty({ enum: CATEGORIES, nullable: true }) category: string | null;
  @ApiProperty({ enum: URGENCIES, nullable: true }) urgency: string | null;
  @ApiProperty({ enum: LANGUAGES, nullable: true }) language: string | null;
  @ApiProperty({ type: 'number', nullable: true, minimum: 0, maximum: 1 }) intake_completeness: number | null;
  @nullableString('Callback number as stated.') phone: string | null;
  @nullableString('Digits only.') phone_extension: string | null;
  @nullableString() email: string | null;
  @nullableString("The firm's own id for the lead; the service never sets it.") external_id: string | null;
  @nullableString("The firm's note on the status.") status_reason: string | null;
  @ApiProperty({ type: LeadUntrustedDto, nullable: true }) untrusted: LeadUntrustedDto | null;
}

export class IntakeUntrustedDto {
  @nullableString() caller_name: string | null;
  @nullableString() caller_phone: string | null;
  @nullableString() caller_email: string | null;
  @nullableString() referral_source: string | null;
  @nullableString() relationship_to_injured: string | null;
  @nullableString() incident_date: string | null;
  @nullableString() incident_location: string | null;
  @nullableString() incident_description: string | null;
  @nullableString() fault_belief: string | null;
  @nullableString('Health information.') injuries: string | null;
  @nullableString('Health information.') treatment: string | null;
  @nullableString() police_report_number: string | null;
  @nullableString() insurance_carrier: string | null;
  @nullableString() adverse_party_name: string | null;
  @nullableString() narrative_summary: string | null;
  @nullableBoolean('False can also mean the topic never came up; null means not recorded.') hospitalized: boolean | null;
  @nullableBoolean() surgery: boolean | null;
  @nullableBoolean() police_report_filed: boolean | null;
  @nullableBoolean() gave_recorded_statement: boolean | null;
  @nullableBoolean() commercial_vehicle_involved: boolean | null;
  @nullableBoolean() missed_work: boolean | null;
  @nullableBoolean() currently_represented: boolean | null;
  @nullableBoolean() conflict_flag: boolean | null;
}

export class LeadIntakeDto {
  @nullableString() extracted_at: string | null;
  @ApiProperty({ type: 'number', nullable: true, minimum: 0, maximum: 1 }) completeness: number | null;
  @ApiProperty({ type: IntakeUntrustedDto }) untrusted: IntakeUntrustedDto;
}

export class LeadListDto {
  @ApiProperty() timezone: string;
  @ApiProperty({ enum: ['full', 'minimal'] }) caller_data: 'full';
  @ApiProperty({ type: [LeadDto] }) leads: LeadDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: 'string', nullable: true }) next_cursor: string | null;
  @ApiProperty({ format: 'date-time', description: "Pass the first page's as_of as the next run's updated_since." }) as_of: string;
  @ApiProperty() truncated: boolean;
  @ApiProperty({ type: 'string', nullable: true }) note: string | null;
}

export class LeadResponseDto {
  @ApiProperty() timezone: string;
  @ApiProperty({ type: LeadDto }) lead: LeadDto;
  @ApiProperty({ type: LeadIntakeDto, nullable: true, description: 'Null for a contact-only lead with no extracted intake.' })
  intake: LeadIntakeDto | null;
}

export class PatchLeadResponseDto {
  @ApiProperty() timezone: string;
  @ApiProperty({ enum: ['full', 'minimal'] }) caller_data: 'full';
  @ApiProperty({ type: LeadDto }) lead: LeadDto;
  @ApiProperty({ description: 'False when the lead already had the values sent (nothing emitted).' }) changed: boolean;
  @ApiProperty({ description: 'Free-text hint for AI assistants; code must ignore it.' }) next_step: string;
}

export class LeadConflictProblem extends Problem {
  @ApiProperty({ type: LeadDto, description: 'The lead as it is now.' }) lead: LeadDto;
}
