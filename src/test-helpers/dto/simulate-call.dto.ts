import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsBoolean, IsIn, ValidateBy, ValidateIf } from 'class-validator';
import { CATEGORIES, OUTCOMES, type Category } from '../../calls/index.js';
import { BodyMayBeOmitted, BodySchemaRules } from '../../common/validation/body-rules.js';
import { CALLER_NUMBER_FORM, isPhoneForm, normalizePhone, PHONE_FORM_PATTERN } from '../../common/phone.js';

export type Outcome = (typeof OUTCOMES)[number];

/** Sent members are checked even when null: each member is omitted or a value, never null. */
const WhenSent = () => ValidateIf((_o, v) => v !== undefined);
const Flag = (name: string) => IsBoolean({ message: `${name} must be true or false` });
const OneOf = (name: string, values: readonly string[]) =>
  IsIn(values as string[], { message: `${name} must be one of ${values.join(', ')}` });

/**
 * A member taking one of the spec's open enumerations: in a response the value list is open, but here a
 * value the service does not know yet is refused (400), so the document lists the values it takes (`enum`);
 * a value added later is listed, and taken, from then on.
 */
function EnumMember(values: readonly string[], description: string) {
  return ApiPropertyOptional({ enum: [...values], description, example: values[0] });
}

/**
 * A phone number of the form the document states (src/common/phone.ts, the caller_number filters' form)
 * that libphonenumber-js also finds in service: the second part no pattern can state.
 */
function IsPhoneNumber(name: string) {
  return ValidateBy({
    name: 'isPhoneNumber',
    validator: {
      validate: (v: unknown) => isPhoneForm(v) && normalizePhone(v) !== null,
      defaultMessage: () => `${name} must be a valid phone number: E.164 such as +13125550123, or a US number such as (312) 555-0123`,
    },
  });
}

/** POST /v1/test-helpers/calls: what the simulated call should be. Every member is optional, and so is the body. */
@BodyMayBeOmitted()
@ApiSchema({
  description:
    'What the simulated call should be; each member optional (omitted: the default it describes), none null. The body itself may be omitted. ' +
    'An unanswered call (answered false) has no category, outcome not_attempted and no lead.',
})
// The refusals of planSimulatedCall and of ingestion's rules for an unanswered call, stated in the schema.
@BodySchemaRules({
  if: { required: ['answered'], properties: { answered: { const: false } } },
  then: { properties: { category: false, outcome: { const: 'not_attempted' }, lead: { const: false } } },
})
export class SimulateCallDto {
  @EnumMember(CATEGORIES, 'What the call is about. Default new_injury_lead on an answered call; must be omitted when answered is false.')
  @WhenSent()
  @OneOf('category', CATEGORIES)
  category?: Category;

  @ApiPropertyOptional({
    type: 'boolean',
    description: 'False: the caller hung up before the receptionist spoke. Default true.',
    example: true,
  })
  @WhenSent()
  @Flag('answered')
  answered?: boolean;

  @EnumMember(
    OUTCOMES,
    'The transfer outcome. Default connected on an answered call (put through: briefing and conversation turns), not_attempted on an unanswered one, which can have no other.',
  )
  @WhenSent()
  @OneOf('outcome', OUTCOMES)
  outcome?: Outcome;

  @ApiPropertyOptional({
    type: 'boolean',
    description:
      'Whether the call yields a lead (lead.created). Default: true for an answered new_injury_lead or referring_attorney call, else false. An unanswered call yields none.',
    example: true,
  })
  @WhenSent()
  @Flag('lead')
  lead?: boolean;

  @ApiPropertyOptional({
    type: 'string',
    pattern: PHONE_FORM_PATTERN,
    description: `The caller id: ${CALLER_NUMBER_FORM} It must also be a number in service in its country's numbering plan (libphonenumber's metadata; an unassigned area code such as 555 answers 400). Default: a fictional 555-01xx Chicago number.`,
    example: '+13125550142',
  })
  @WhenSent()
  @IsPhoneNumber('caller_number')
  caller_number?: string;

  @ApiPropertyOptional({
    type: 'boolean',
    description: 'Whether the call has a playable Ogg Opus recording. Default: true on an answered call, false on an unanswered one.',
    example: true,
  })
  @WhenSent()
  @Flag('recording')
  recording?: boolean;
}

/** POST /v1/test-helpers/calls/{call_id}/reprocess: what the re-processing finds. The body may be omitted. */
@BodyMayBeOmitted()
@ApiSchema({ description: 'What the re-processing finds; the body may be omitted.' })
export class ReprocessCallDto {
  @ApiPropertyOptional({
    type: 'boolean',
    description:
      'false: the re-processing finds no lead, so the call’s lead_id turns null (the lead stays readable). true: it finds one (created, with lead.created, if the call had none). Default: as before.',
    example: false,
  })
  @WhenSent()
  @Flag('lead')
  lead?: boolean;
}

/** The answer of both test helpers. */
@ApiSchema({ description: 'The simulated call and its lead.' })
export class SimulatedCallDto {
  @ApiProperty({
    description: 'The call, readable with test keys only (`GET /v1/calls/{call_id}`).',
    example: 'call_01jd5x8m3q7k2w9n4b6c8d0f2h',
  })
  call_id: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The lead the call yielded; null when none.',
    example: 'lead_01jd5x8m9r2t4v6x8z0b2d4f6h',
  })
  lead_id: string | null;
}
