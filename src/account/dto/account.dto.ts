import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { SCOPES } from '../../common/http/scopes.js';

@ApiSchema({ description: 'The firm.' })
export class AccountOrgDto {
  @ApiProperty({ description: 'Stable firm id; key the firm on it.' }) id: string;
  @ApiProperty({ description: 'Can change.' }) slug: string;
  @ApiProperty({ type: 'string', nullable: true }) display_name: string | null;
  @ApiProperty({ description: 'Values not shown in the spec; treat as informational.' }) status: string;
  @ApiProperty({ description: 'IANA timezone name.', example: 'America/Chicago' }) timezone: string;
  @ApiProperty({ example: 'law' }) vertical: string;
}

@ApiSchema({ description: 'Setup progress of the firm, one boolean per step.' })
export class AccountSetupDto {
  @ApiProperty() receptionist_configured: boolean;
  @ApiProperty() config_valid: boolean;
  @ApiProperty() published: boolean;
  @ApiProperty() team_added: boolean;
  @ApiProperty() number_provisioned: boolean;
  @ApiProperty() org_live: boolean;
  @ApiProperty() first_call_received: boolean;
  @ApiProperty() payment_method_on_file: boolean;
}

export const NEXT_STEP_CODES = [
  'start_setup',
  'finish_setup',
  'get_number',
  'make_test_call',
  'add_payment_method',
  'upgrade',
  'contact_support',
  'none',
] as const;
export type NextStepCode = (typeof NEXT_STEP_CODES)[number];

@ApiSchema({ description: 'What the firm should do next to finish setup.' })
export class AccountNextStepDto {
  @ApiProperty({ enum: NEXT_STEP_CODES }) code: NextStepCode;
  @ApiProperty() message: string;
  @ApiProperty({ type: 'string', nullable: true }) dashboard_url: string | null;
}

@ApiSchema({ description: 'The API key used for this request.' })
export class AccountApiKeyDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'Characters after svc_live_ that start the key.' }) prefix: string;
  @ApiProperty() last4: string;
  @ApiProperty({ type: [String], enum: SCOPES }) scopes: string[];
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Null when the key does not expire.' }) expires_at:
    string | null;
  @ApiProperty({ type: 'string', format: 'date-time' }) created_at: string;
}

@ApiSchema({ description: "The firm's account status and the calling key." })
export class AccountDto {
  @ApiProperty({ description: 'Always true for an API key.' }) has_org: boolean;
  @ApiProperty({ type: AccountOrgDto, nullable: true }) org: AccountOrgDto | null;
  @ApiProperty({ type: 'string', nullable: true }) plan: string | null;
  @ApiProperty({ type: 'string', nullable: true }) billing_status: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) trial_ends_at: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) trial_days_left: number | null;
  @ApiProperty({ type: 'string', nullable: true, description: "The firm's phone number on the service." }) number: string | null;
  @ApiProperty({ type: AccountSetupDto, nullable: true }) setup: AccountSetupDto | null;
  @ApiProperty({ type: AccountNextStepDto }) next_step: AccountNextStepDto;
  @ApiProperty({ type: AccountApiKeyDto, nullable: true, description: 'The key used for this request.' }) api_key: AccountApiKeyDto | null;
}
