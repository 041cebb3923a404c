import { ApiExtraModels, ApiProperty, getSchemaPath, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
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
  ValidateNested,
} from 'class-validator';

/**
 * The receptionist settings document: validated when the owner publishes or
 * drafts (CLI), and served read-only by GET /v1/receptionist. The same class
 * is the OpenAPI schema.
 */
@ApiSchema({ description: "The firm's public profile, as given to callers." })
export class ProfileDto {
  @ApiProperty() @IsString() @IsNotEmpty() city: string;
  @ApiProperty() @IsString() @IsNotEmpty() state: string;
  @ApiProperty({ type: 'string', nullable: true }) @IsOptional() @IsString() address: string | null = null;
  @ApiProperty({ type: 'string', nullable: true }) @IsOptional() @IsString() phone: string | null = null;
  @ApiProperty({ type: 'string', nullable: true }) @IsOptional() @IsString() fax: string | null = null;
  @ApiProperty({ type: 'string', nullable: true, description: 'Given to callers who ask; null = none.' })
  @IsOptional()
  @IsEmail()
  contact_email: string | null = null;
}

@ApiSchema({ description: 'Office hours.' })
export class HoursDto {
  @ApiProperty({ example: 'America/Chicago' })
  @IsTimeZone({ message: '$property must be an IANA timezone name such as America/Chicago' })
  timezone: string;
  @ApiProperty({ type: [Number], description: '0 = Sunday to 6 = Saturday.' })
  @IsArray()
  @IsInt({ each: true })
  @Min(0, { each: true })
  @Max(6, { each: true })
  days: number[];
  @ApiProperty({ example: '08:30' })
  @IsString()
  @Matches(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'hours.start must be HH:MM' })
  start: string;
  @ApiProperty({ example: '17:30' }) @IsString() @Matches(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'hours.end must be HH:MM' }) end: string;
}

@ApiSchema({ description: 'A team member the receptionist can transfer to.' })
export class TeamMemberDto {
  @ApiProperty() @IsString() @Matches(/^[a-z0-9_-]{1,64}$/, { message: 'team key must be lowercase letters, digits, _ or -' }) key: string;
  @ApiProperty() @IsString() @IsNotEmpty() name: string;
  @ApiProperty() @IsString() role: string;
  @ApiProperty() @IsString() @IsNotEmpty() phone: string;
  @ApiProperty({ example: 'en' }) @IsString() language: string;
  @ApiProperty({ type: 'string', nullable: true }) @IsOptional() @IsEmail() email: string | null = null;
  @ApiProperty() @IsBoolean() live_transfers: boolean;
  @ApiProperty() @IsBoolean() after_hours: boolean;
}

@ApiSchema({ description: 'A transfer chain used instead of the default for one caller language.' })
export class ChainOverrideDto {
  @ApiProperty({ type: [String] }) @IsArray() @IsString({ each: true }) in_hours_chain: string[];
}

@ApiSchema({ description: 'Per-language transfer chains; null keeps the default chain.' })
export class LanguageOverridesDto {
  @ApiProperty({ type: ChainOverrideDto, nullable: true })
  @IsOptional()
  @ValidateNested()
  @Type(() => ChainOverrideDto)
  en: ChainOverrideDto | null = null;
  @ApiProperty({ type: ChainOverrideDto, nullable: true })
  @IsOptional()
  @ValidateNested()
  @Type(() => ChainOverrideDto)
  es: ChainOverrideDto | null = null;
}

@ApiSchema({ description: 'How calls of one category are routed.' })
export class RoutingRuleDto {
  @ApiProperty({ type: [String], description: 'Team keys, rung in order.' }) @IsArray() @IsString({ each: true }) in_hours_chain: string[];
  @ApiProperty({ example: 'take_message' }) @IsString() after_hours: string;
  @ApiProperty({ example: 'normal' }) @IsString() urgency: string;
  @ApiProperty() @IsBoolean() always_transfer: boolean;
  @ApiProperty({ type: LanguageOverridesDto }) @ValidateNested() @Type(() => LanguageOverridesDto) language_overrides: LanguageOverridesDto;
}

@ApiSchema({ description: 'A fact read to callers who ask.' })
export class FactDto {
  @ApiProperty() @IsString() @IsNotEmpty() key: string;
  @ApiProperty() @IsString() @IsNotEmpty() label: string;
  @ApiProperty() @IsString() value: string;
}

@ApiExtraModels(RoutingRuleDto)
@ApiSchema({ description: 'Receptionist settings.' })
export class ReceptionistSettingsDto {
  @ApiProperty({ example: 'Ava' }) @IsString() @IsNotEmpty() @MaxLength(60) agent_name: string;
  @ApiProperty({ type: ProfileDto }) @ValidateNested() @Type(() => ProfileDto) profile: ProfileDto;
  @ApiProperty({ type: HoursDto }) @ValidateNested() @Type(() => HoursDto) hours: HoursDto;
  @ApiProperty({ type: [TeamMemberDto] })
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => TeamMemberDto)
  team: TeamMemberDto[];
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(RoutingRuleDto) },
    description: 'Keyed by caller category.',
  })
  @IsObject()
  routing: Record<string, RoutingRuleDto>;
  @ApiProperty({ type: [String] }) @IsArray() @IsEmail({}, { each: true }) alert_emails: string[];
  @ApiProperty({ description: 'Never given to callers.' }) @IsEmail() capture_email: string;
  @ApiProperty({ type: [FactDto] }) @IsArray() @ValidateNested({ each: true }) @Type(() => FactDto) facts: FactDto[];
  @ApiProperty({ type: [String] }) @IsArray() @IsString({ each: true }) house_rules: string[];
}

@ApiSchema({ description: 'The published receptionist settings (read-only; changed in the dashboard).' })
export class PublishedReceptionistDto extends ReceptionistSettingsDto {
  @ApiProperty({ type: 'integer', description: 'Published settings version.' }) version: number;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) published_at: string | null;
  @ApiProperty({ description: 'True when drafted changes are not yet applied.' }) draft_pending: boolean;
}
