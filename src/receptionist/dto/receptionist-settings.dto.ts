import { ApiExtraModels, ApiProperty, getSchemaPath, ApiSchema } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  IsTimeZone,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { Nested } from '../../common/validation/nested.js';
import { NullableDateTime, NullableString } from '../../common/http/schema.decorators.js';

/**
 * The receptionist settings document: validated when the owner publishes or
 * drafts (CLI), and served read-only by GET /v1/receptionist. The same class
 * is the OpenAPI schema.
 */
@ApiSchema({ description: "The firm's public profile, as given to callers." })
export class ProfileDto {
  @ApiProperty({ description: 'City of the office.', example: 'Chicago' }) @IsString() @IsNotEmpty() city: string;
  @ApiProperty({ description: 'State or region of the office.', example: 'IL' }) @IsString() @IsNotEmpty() state: string;
  @NullableString('Street address given to callers; null = none.', '120 N LaSalle St, Suite 2000, Chicago, IL 60602')
  @IsOptional()
  @IsString()
  address: string | null = null;
  @NullableString('Office phone number given to callers; null = none.', '+13125550100') @IsOptional() @IsString() phone: string | null =
    null;
  @NullableString('Fax number given to callers; null = none.', '+13125550101') @IsOptional() @IsString() fax: string | null = null;
  @NullableString('The email given to callers who ask; null = none.', 'intake@harperlegal.example')
  @IsOptional()
  @IsEmail()
  contact_email: string | null = null;
}

@ApiSchema({ description: 'Office hours.' })
export class HoursDto {
  @ApiProperty({ description: 'IANA timezone name the hours are in.', example: 'America/Chicago' })
  @IsTimeZone({ message: '$property must be an IANA timezone name such as America/Chicago' })
  timezone: string;
  @ApiProperty({
    type: 'array',
    items: { type: 'integer', minimum: 0, maximum: 6 },
    description: 'Open days: 0 = Sunday to 6 = Saturday.',
    example: [1, 2, 3, 4, 5],
  })
  @IsArray()
  @IsInt({ each: true })
  @Min(0, { each: true })
  @Max(6, { each: true })
  days: number[];
  @ApiProperty({ description: 'Opening time, local, HH:MM.', example: '08:30' })
  @IsString()
  @Matches(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'hours.start must be HH:MM' })
  start: string;
  @ApiProperty({ description: 'Closing time, local, HH:MM.', example: '17:30' })
  @IsString()
  @Matches(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'hours.end must be HH:MM' })
  end: string;
}

@ApiSchema({ description: 'A team member the receptionist can transfer to.' })
export class TeamMemberDto {
  @ApiProperty({ description: 'Stable key of the member, used in routing chains.', example: 'dana' })
  @IsString()
  @Matches(/^[a-z0-9_-]{1,64}$/, { message: 'team key must be lowercase letters, digits, _ or -' })
  key: string;
  @ApiProperty({ description: 'Full name, as the receptionist says it.', example: 'Dana Harper' }) @IsString() @IsNotEmpty() name: string;
  @ApiProperty({ description: 'Role at the firm.', example: 'Managing attorney' }) @IsString() role: string;
  @ApiProperty({ description: 'Number calls are transferred to.', example: '+13125550111' }) @IsString() @IsNotEmpty() phone: string;
  @ApiProperty({ description: 'Language the member takes calls in.', example: 'en' }) @IsString() language: string;
  @NullableString('Email for call summaries; null = none.', 'dana@harperlegal.example') @IsOptional() @IsEmail() email: string | null =
    null;
  @ApiProperty({ description: 'Whether calls may be transferred to the member live.', example: true }) @IsBoolean() live_transfers: boolean;
  @ApiProperty({ description: 'Whether the member takes transfers outside office hours.', example: false })
  @IsBoolean()
  after_hours: boolean;
}

@ApiSchema({ description: 'A transfer chain used instead of the default for one caller language.' })
export class ChainOverrideDto {
  @ApiProperty({ type: [String], description: 'Team keys, rung in order, for callers of this language.', example: ['luis'] })
  @IsArray()
  @IsString({ each: true })
  in_hours_chain: string[];
}

@ApiSchema({ description: 'Per-language transfer chains; null keeps the default chain.' })
export class LanguageOverridesDto {
  @ApiProperty({ type: ChainOverrideDto, nullable: true, description: 'Chain for English-speaking callers; null keeps the default.' })
  @IsOptional()
  @Nested(() => ChainOverrideDto)
  en: ChainOverrideDto | null = null;
  @ApiProperty({ type: ChainOverrideDto, nullable: true, description: 'Chain for Spanish-speaking callers; null keeps the default.' })
  @IsOptional()
  @Nested(() => ChainOverrideDto)
  es: ChainOverrideDto | null = null;
}

@ApiSchema({ description: 'How calls of one category are routed.' })
export class RoutingRuleDto {
  @ApiProperty({ type: [String], description: 'Team keys, rung in order.', example: ['maya', 'dana'] })
  @IsArray()
  @IsString({ each: true })
  in_hours_chain: string[];
  @ApiProperty({ description: 'What the receptionist does outside office hours.', example: 'take_message' })
  @IsString()
  after_hours: string;
  @ApiProperty({ description: 'Urgency given to calls of this category.', example: 'high' }) @IsString() urgency: string;
  @ApiProperty({ description: 'Whether the receptionist always tries a transfer in hours.', example: true })
  @IsBoolean()
  always_transfer: boolean;
  @ApiProperty({ type: LanguageOverridesDto, description: 'Chains used instead of in_hours_chain for a caller language.' })
  @IsDefined({ message: 'is required: an object with en and es, each null or {in_hours_chain}' })
  @Nested(() => LanguageOverridesDto)
  language_overrides: LanguageOverridesDto;
}

@ApiSchema({ description: 'A fact read to callers who ask.' })
export class FactDto {
  @ApiProperty({ description: 'Stable key of the fact.', example: 'fees' }) @IsString() @IsNotEmpty() key: string;
  @ApiProperty({ description: 'What the fact is about.', example: 'Fees' }) @IsString() @IsNotEmpty() label: string;
  @ApiProperty({ description: 'The fact as read to callers.', example: 'No fee unless we win; free consultation.' })
  @IsString()
  value: string;
}

@ApiExtraModels(RoutingRuleDto)
@ApiSchema({ description: 'Receptionist settings.' })
export class ReceptionistSettingsDto {
  @ApiProperty({ description: 'Name the receptionist gives callers.', example: 'Ava' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(60)
  agent_name: string;
  @ApiProperty({ type: ProfileDto, description: "The firm's public profile." })
  @Nested(() => ProfileDto)
  profile: ProfileDto;
  @ApiProperty({ type: HoursDto, description: 'Office hours.' }) @Nested(() => HoursDto) hours: HoursDto;
  @ApiProperty({ type: [TeamMemberDto], description: 'Team members the receptionist can transfer to.' })
  @IsArray()
  @ArrayMaxSize(100)
  @Nested(() => TeamMemberDto, { each: true })
  team: TeamMemberDto[];
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(RoutingRuleDto) },
    description: 'Keyed by caller category.',
  })
  @IsObject()
  routing: Record<string, RoutingRuleDto>;
  @ApiProperty({ type: [String], description: 'Recipients of call summaries.', example: ['dana@harperlegal.example'] })
  @IsArray()
  @IsEmail({}, { each: true })
  alert_emails: string[];
  @ApiProperty({ description: 'Where captured leads are emailed. Never given to callers.', example: 'leads@harperlegal.example' })
  @IsEmail()
  capture_email: string;
  @ApiProperty({ type: [FactDto], description: 'Facts read to callers who ask, in order.' })
  @IsArray()
  @Nested(() => FactDto, { each: true })
  facts: FactDto[];
  @ApiProperty({
    type: [String],
    description: 'Standing preferences, in order; empty array = none.',
    example: ['Never quote a settlement amount.'],
  })
  @IsArray()
  @IsString({ each: true })
  house_rules: string[];
}

@ApiSchema({ description: 'The published receptionist settings (read-only; changed in the dashboard).' })
export class PublishedReceptionistDto extends ReceptionistSettingsDto {
  @ApiProperty({ type: 'integer', description: 'Published settings version.', example: 3 }) version: number;
  @NullableDateTime('When this version was published; null when never published.', '2026-04-02T15:20:00Z') published_at: string | null;
  @ApiProperty({ description: 'True when drafted changes are not yet applied.', example: false }) draft_pending: boolean;
}
