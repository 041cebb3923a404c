import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { NullableDateTime, NullableString } from '../../common/http/schema.decorators.js';
import { SCOPES } from '../../common/http/scopes.js';

const ORG_ID = '6b0e4f2a-1c3d-4e5f-8a9b-0c1d2e3f4a5b';

@ApiSchema({ description: 'The firm.' })
export class AccountOrgDto {
  @ApiProperty({ description: 'Stable firm id; key the firm on it.', example: ORG_ID }) id: string;
  @ApiProperty({ description: 'Short URL name of the firm. Can change; never key on it.', example: 'harper-legal' }) slug: string;
  @NullableString('The firm name as shown to people; null when not set.', 'Harper Legal') display_name: string | null;
  @ApiProperty({ description: 'Lifecycle status of the firm. Values not shown in the spec; treat as informational.', example: 'live' })
  status: string;
  @ApiProperty({ description: 'IANA timezone name.', example: 'America/Chicago' }) timezone: string;
  @ApiProperty({ description: 'The line of business the receptionist is set up for.', example: 'law' }) vertical: string;
}

@ApiSchema({ description: 'Setup progress of the firm, one boolean per step.' })
export class AccountSetupDto {
  @ApiProperty({ description: 'The receptionist has a greeting, team and routing.', example: true }) receptionist_configured: boolean;
  @ApiProperty({ description: 'The receptionist settings pass validation.', example: true }) config_valid: boolean;
  @ApiProperty({ description: 'The settings are published and in use.', example: true }) published: boolean;
  @ApiProperty({ description: 'At least one team member is set up.', example: true }) team_added: boolean;
  @ApiProperty({ description: 'The firm has a phone number on the service.', example: true }) number_provisioned: boolean;
  @ApiProperty({ description: 'The firm is live: calls are answered.', example: true }) org_live: boolean;
  @ApiProperty({ description: 'The receptionist has answered at least one call.', example: true }) first_call_received: boolean;
  @ApiProperty({ description: 'A payment method is on file.', example: true }) payment_method_on_file: boolean;
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
  @ApiProperty({
    enum: NEXT_STEP_CODES,
    description: 'The next step, in setup order; none when everything is done.',
    example: 'make_test_call',
  })
  code: NextStepCode;
  @ApiProperty({ description: 'The step in a sentence for a person.', example: 'Call your receptionist number to hear it answer.' })
  message: string;
  @NullableString('Dashboard page where the step is done; null when there is none.', 'https://app.example.com/calls') dashboard_url:
    string | null;
}

@ApiSchema({ description: 'The API key used for this request.' })
export class AccountApiKeyDto {
  @ApiProperty({ description: 'Stable id of the key.', example: '3f1c2a9e-8d4b-4c6a-9e2f-1a2b3c4d5e6f' }) id: string;
  @ApiProperty({ description: 'Name the owner gave the key in the dashboard.', example: 'CRM sync' }) name: string;
  @ApiProperty({ description: 'The 8 characters after svc_live_ (or svc_test_) that start the key.', example: 'k7Qm2xVb' }) prefix: string;
  @ApiProperty({ description: 'Last four characters of the key.', example: 'r9Tw' }) last4: string;
  @ApiProperty({
    type: [String],
    enum: SCOPES,
    description: 'What the key may do; an operation needing another scope answers 403 insufficient_scope.',
    example: ['org:read', 'calls:read', 'leads:read', 'leads:write'],
  })
  scopes: string[];
  @NullableDateTime('When the key stops working; null when the key does not expire.', null) expires_at: string | null;
  @ApiProperty({ format: 'date-time', description: 'When the key was created.', example: '2026-04-01T09:00:00Z' }) created_at: string;
  @ApiProperty({
    description:
      "The key's mode. true: a live key (svc_live_), which sees live data. false: a test key (svc_test_), which sees only the " +
      "firm's test-mode calls, leads, events and webhook endpoints; the account and receptionist settings are the same in both.",
    example: true,
  })
  livemode: boolean;
}

@ApiSchema({ description: "The firm's account status and the calling key." })
export class AccountDto {
  @ApiProperty({ description: 'Whether the caller belongs to a firm. Always true for an API key.', example: true }) has_org: boolean;
  @ApiProperty({ type: AccountOrgDto, nullable: true, description: 'The firm; null only when has_org is false.' })
  org: AccountOrgDto | null;
  @NullableString('Billing plan of the firm; null when none is chosen.', 'trial') plan: string | null;
  @NullableString('Billing status of the firm; null when billing has not started.', 'trialing') billing_status: string | null;
  @NullableDateTime('When the free trial ends; null when the firm is not on a trial.', '2026-05-15T00:00:00Z') trial_ends_at: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Whole days left in the trial; null when not on a trial.', example: 14 })
  trial_days_left: number | null;
  @NullableString("The firm's phone number on the service (E.164); null until one is provisioned.", '+13125550199') number: string | null;
  @ApiProperty({ type: AccountSetupDto, nullable: true, description: 'Setup progress; null when the caller has no firm.' })
  setup: AccountSetupDto | null;
  @ApiProperty({ type: AccountNextStepDto }) next_step: AccountNextStepDto;
  @ApiProperty({ type: AccountApiKeyDto, nullable: true, description: 'The key used for this request.' }) api_key: AccountApiKeyDto | null;
}
