import type { AccountSetupDto, NextStepCode } from './dto/account.dto.js';

const MESSAGES: Record<NextStepCode, [string, string]> = {
  start_setup: ['Set up the receptionist: greeting, team and routing.', '/setup'],
  finish_setup: ['Finish the receptionist setup and publish it.', '/setup'],
  get_number: ['Get a phone number for the receptionist.', '/setup/number'],
  make_test_call: ['Call your receptionist number to hear it answer.', '/calls'],
  add_payment_method: ['Add a payment method to keep the receptionist answering after the trial.', '/billing'],
  upgrade: ['The trial has ended: choose a plan to keep the receptionist answering.', '/billing'],
  contact_support: ['There is a problem with billing; contact support.', '/support'],
  none: ['Everything is set up.', '/'],
};

export interface NextStepInput {
  setup: AccountSetupDto;
  billingStatus: string | null;
  trialEnded: boolean;
}

/** The first thing the firm still has to do, in setup order. */
export function nextStepCode({ setup, billingStatus, trialEnded }: NextStepInput): NextStepCode {
  if (!setup.receptionist_configured) return 'start_setup';
  if (!setup.config_valid || !setup.published || !setup.team_added) return 'finish_setup';
  if (!setup.number_provisioned) return 'get_number';
  if (!setup.first_call_received) return 'make_test_call';
  if (billingStatus === 'past_due' || billingStatus === 'unpaid' || billingStatus === 'suspended') return 'contact_support';
  if (!setup.payment_method_on_file) return trialEnded ? 'upgrade' : 'add_payment_method';
  return 'none';
}

export function nextStep(code: NextStepCode, dashboardUrl: string | null) {
  const [message, path] = MESSAGES[code];
  return { code, message, dashboard_url: dashboardUrl ? `${dashboardUrl}${path}` : null };
}
