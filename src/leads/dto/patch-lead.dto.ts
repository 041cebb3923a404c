import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsOptional, ValidateBy, ValidateIf, type ValidationOptions } from 'class-validator';
import { RequireOneOf } from '../../common/validation/body-rules.js';
import { TEXT_PATTERN } from '../../common/validation/string-safety.js';
import { LEAD_STATUSES, SETTABLE_STATUSES, type LeadStatus } from '../lead-model.js';
import { EXTERNAL_ID_MAX_LENGTH, STATUS_REASON_MAX_LENGTH } from '../lead-rules.js';

const BREAKS = ['\r', '\n', '\u000b', '\u000c', '\u0085', '\u2028', '\u2029'];
const LINE_BREAKS = new Set(BREAKS);
const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
/** The document's statement of a one-line text: no line break (the set above) and no NUL. */
const ONE_LINE_PATTERN = `^[^${['\u0000', ...BREAKS].map(escaped).join('')}]*$`;
/** Lengths count characters (code points), as a person would. */
const length = (s: string) => [...s].length;

function Text(name: string, max: number, oneLine: boolean, options?: ValidationOptions) {
  return ValidateBy(
    {
      name: 'leadText',
      validator: {
        validate: (v: unknown) =>
          typeof v === 'string' && length(v) >= 1 && length(v) <= max && !(oneLine && [...v].some((c) => LINE_BREAKS.has(c))),
        defaultMessage: () => `${name} must be a string of 1 to ${max} characters${oneLine ? ' on one line' : ''}, or null to clear it`,
      },
    },
    options,
  );
}

function OneOf(name: string, values: readonly string[], refusals: Record<string, string> = {}) {
  return ValidateBy({
    name: 'leadStatusValue',
    validator: {
      validate: (v: unknown) => typeof v === 'string' && values.includes(v),
      defaultMessage: (args) =>
        (typeof args?.value === 'string' ? refusals[args.value] : undefined) ?? `${name} must be one of ${values.join(', ')}`,
    },
  });
}

/** Sent members are checked even when null (omitted and null mean different things here). */
const WhenSent = () => ValidateIf((_o, v) => v !== undefined);

/**
 * PATCH /v1/leads/{lead_id}: only these members; at least one of the first
 * three; omitted keeps a value, null clears it. A member is present on the
 * instance exactly when it was sent.
 */
@RequireOneOf('status', 'external_id', 'status_reason')
@ApiSchema({
  description:
    'The changes to a lead: at least one of status, external_id, status_reason (expected_status alone changes nothing and is refused); no other members.',
})
export class PatchLeadDto {
  @ApiPropertyOptional({ enum: SETTABLE_STATUSES, description: 'The new status. Cannot be new.', example: 'contacted' })
  @WhenSent()
  @OneOf('status', SETTABLE_STATUSES, { new: 'status cannot be set back to new; send contacted, signed or rejected' })
  status?: LeadStatus;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    minLength: 1,
    maxLength: EXTERNAL_ID_MAX_LENGTH,
    pattern: ONE_LINE_PATTERN,
    description: `The lead's id in your own system: 1 to ${EXTERNAL_ID_MAX_LENGTH} characters on one line. null clears; omitted keeps.`,
    example: 'CRM-1042',
  })
  @IsOptional()
  @Text('external_id', EXTERNAL_ID_MAX_LENGTH, true)
  external_id?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    minLength: 1,
    maxLength: STATUS_REASON_MAX_LENGTH,
    pattern: TEXT_PATTERN,
    description: `Why the status is what it is: 1 to ${STATUS_REASON_MAX_LENGTH} characters. null clears; omitted keeps.`,
    example: 'Signed retainer on May 2.',
  })
  @IsOptional()
  @Text('status_reason', STATUS_REASON_MAX_LENGTH, false)
  status_reason?: string | null;

  @ApiPropertyOptional({
    enum: LEAD_STATUSES,
    description:
      'Applies only when status is sent: 409 status_conflict unless the lead is at this status (or already at the requested one).',
    example: 'new',
  })
  @WhenSent()
  @OneOf('expected_status', LEAD_STATUSES)
  expected_status?: LeadStatus;
}
