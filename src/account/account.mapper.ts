import type { ApiPrincipal } from '../common/http/principal.js';
import type { ReceptionistSetupState } from '../receptionist/index.js';
import type { AccountDto } from './dto/account.dto.js';
import { nextStep, nextStepCode } from './next-step.js';
import type { Org } from './org.js';

const DAY_MS = 86_400_000;

/** GET /v1/account: the firm, its setup derived from real state, and the calling key. */
export function toAccountDto(
  org: Org,
  state: ReceptionistSetupState,
  principal: ApiPrincipal,
  now: Date,
  dashboardUrl: string | null,
): AccountDto {
  const setup = {
    receptionist_configured: state.configured,
    config_valid: state.configValid,
    published: state.published,
    team_added: state.teamAdded,
    number_provisioned: org.number !== null,
    org_live: org.status === 'live',
    first_call_received: org.firstCallAt !== null,
    payment_method_on_file: org.paymentMethodOnFile,
  };
  const trialEnded = org.trialEndsAt !== null && org.trialEndsAt.getTime() <= now.getTime();
  return {
    has_org: true,
    org: { id: org.id, slug: org.slug, display_name: org.displayName, status: org.status, timezone: org.timezone, vertical: org.vertical },
    plan: org.plan,
    billing_status: org.billingStatus,
    trial_ends_at: org.trialEndsAt?.toISOString() ?? null,
    trial_days_left: org.trialEndsAt === null ? null : Math.max(0, Math.ceil((org.trialEndsAt.getTime() - now.getTime()) / DAY_MS)),
    number: org.number,
    setup,
    next_step: nextStep(nextStepCode({ setup, billingStatus: org.billingStatus, trialEnded }), dashboardUrl),
    api_key: {
      id: principal.keyId,
      name: principal.keyName,
      prefix: principal.prefix,
      last4: principal.last4,
      scopes: principal.scopes,
      expires_at: principal.expiresAt?.toISOString() ?? null,
      created_at: principal.createdAt.toISOString(),
      livemode: principal.livemode,
    },
  };
}
