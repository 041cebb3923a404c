import { ApiProperty, ApiPropertyOptional, ApiSchema, type ApiPropertyOptions } from '@nestjs/swagger';
import { IsBoolean, IsIn, ValidateBy, ValidateIf } from 'class-validator';
import { CATEGORIES, OUTCOMES, type Category } from '../../calls/index.js';
import { BodyMayBeOmitted } from '../../common/validation/body-rules.js';
import { normalizePhone } from '../../common/phone.js';

export type Outcome = (typeof OUTCOMES)[number];

/** Sent members are checked even when null: each member is omitted or a value, never null. */
const WhenSent = () => ValidateIf((_o, v) => v !== undefined);
const Flag = (name: string) => IsBoolean({ message: `${name} must be true or false` });
const OneOf = (name: string, values: readonly string[]) =>
  IsIn(values as string[], { message: `${name} must be one of ${values.join(', ')}` });

/**
 * A member taking one of the spec's open enumerations (the same `x-extensible-enum` as wherever it appears): a value
 * the service does not know yet is refused (400), a value added later is taken from then on.
 */
function OpenEnumMember(values: readonly string[], description: string) {
  const options = {
    type: 'string',
    description: `${description} Known values: ${values.join(', ')}; more may be added.`,
    example: values[0],
    'x-extensible-enum': [...values],
  };
  return ApiPropertyOptional(options as ApiPropertyOptions);
}

/** A phone number as every other one the service reads (src/common/phone.ts, libphonenumber-js). */
function IsPhoneNumber(name: string) {
  return ValidateBy({
    name: 'isPhoneNumber',
    validator: {
      validate: (v: unknown) => typeof v === 'string' && normalizePhone(v) !== null,
      defaultMessage: () => `${name} must be a valid phone number: E.164 such as +13125550123, or a US number such as (312) 555-0123`,
    },
  });
}

/** POST /v1/test-helpers/calls: what the simulated call should be. Every member is optional, and so is the body. */
@BodyMayBeOmitted()
@ApiSchema({
  description:
    'What the simulated call should be; each member optional (omitted: the default it describes), none null. The body itself may be omitted.',
})
export class SimulateCallDto {
  @OpenEnumMember(
    CATEGORIES,
    'What the call is about. Default new_injury_lead on an answered call; must be omitted when answered is false.',
  )
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

  @OpenEnumMember(
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
    description: 'The caller id: E.164, or a US number in a common format. Default: a fictional 555-01xx Chicago number.',
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
