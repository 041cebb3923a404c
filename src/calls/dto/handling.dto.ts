import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { NullableBoolean, NullableString } from '../../common/http/schema.decorators.js';

@ApiSchema({ description: 'A team member rung during the transfer.' })
export class RungDto {
  @ApiProperty({ description: 'Team member name.', example: 'Dana Smith' }) name: string;
  @ApiProperty({
    description:
      'connected, no_answer, voicemail, declined, caller_gone, attorney_dropped (their line ended before connecting), error (call could not be placed); unknown values shown as they are.',
    example: 'connected',
  })
  outcome: string;
}

@ApiSchema({ description: "The receptionist's routing record. Informational only, not a stable contract." })
export class HandlingDto {
  @ApiProperty({ type: 'integer', description: 'Format version of the record.', example: 2 }) trace_version: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Receptionist settings version in force.', example: 7 }) config_version:
    number | null;
  @ApiProperty({ description: 'Whether the receptionist reached the transfer step; when false, decision fields are null.', example: true })
  transfer_tool_fired: boolean;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Times the transfer step was reached.', example: 1 }) fires: number;
  @NullableBoolean('Office open at the last transfer decision, or at call start when none.', true) business_hours: boolean | null;
  @NullableString("Category routed on during the call; may differ from the call's category.", 'new_injury_lead') category: string | null;
  @NullableString('Category whose transfer rule applied; other for the catch-all.', 'new_injury_lead') rule: string | null;
  @NullableBoolean('Whether the rule allowed a live transfer.', true) eligible: boolean | null;
  @NullableString('no_rule, closed, no_chain; null when allowed. Unknown values are shown as they are.') ineligible_reason: string | null;
  @NullableString('none, exact, confirm, ambiguous, unknown. Unknown values shown as they are.', 'none') requested_person: string | null;
  @NullableString('Name in settings, for exact or confirm.') requested_person_name: string | null;
  @NullableString(
    'Why an allowed transfer stopped before ringing: confirm_name, ambiguous_name, missing_reason; null when nothing stopped it.',
  )
  gate: string | null;
  @ApiProperty({ type: [String], nullable: true, description: 'Team member names to ring, in order.', example: ['Dana Smith'] })
  chain: string[] | null;
  @ApiProperty({ type: [RungDto], nullable: true, description: 'Who was rung; null when no transfer outcome was recorded.' }) rung:
    RungDto[] | null;
  @NullableBoolean('Whether the caller was put through.', true) connected: boolean | null;
  @NullableString('empty_chain, no_trunk, caller_gone, attorney_dropped, declined, chain_exhausted. Unknown values shown as they are.')
  transfer_reason: string | null;
}
