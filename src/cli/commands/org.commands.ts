import { AccountService, type Org } from '../../account/index.js';
import { CliError, req, str, type CliCommand } from '../command.js';

const view = (o: Org) => ({
  id: o.id,
  slug: o.slug,
  display_name: o.displayName,
  status: o.status,
  timezone: o.timezone,
  number: o.number,
  plan: o.plan,
  billing_status: o.billingStatus,
  trial_ends_at: o.trialEndsAt?.toISOString() ?? null,
  payment_method_on_file: o.paymentMethodOnFile,
  owner_email: o.ownerEmail,
});

function optionalDate(value: string | undefined, flag: string): Date | null | undefined {
  if (value === undefined) return undefined;
  if (value === '' || value === 'none') return null;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new CliError(`--${flag} must be an ISO 8601 date-time`, 2);
  return d;
}

const nullable = (v: string | undefined) => (v === undefined ? undefined : v === '' || v === 'none' ? null : v);

export const orgCommands: CliCommand[] = [
  {
    name: 'org create',
    summary: 'Create a firm',
    flags: {
      name: { required: true, description: "The firm's display name" },
      slug: { description: 'URL-friendly id (default: from the name)' },
      timezone: { description: 'IANA timezone (default America/Chicago)' },
      number: { description: "The firm's receptionist number, E.164" },
      'owner-email': { description: "Owner's email (webhook failure notices)" },
    },
    async run(ctx) {
      const org = await ctx.app.get(AccountService).createOrg({
        name: req(ctx, 'name'),
        slug: str(ctx, 'slug'),
        timezone: str(ctx, 'timezone'),
        number: str(ctx, 'number'),
        ownerEmail: str(ctx, 'owner-email'),
      });
      return { id: org.id, slug: org.slug };
    },
    human: (r) => `created firm ${r.slug} (${r.id})`,
  },
  {
    name: 'org update',
    summary: "Change a firm's account facts (dashboard and billing stand-in)",
    flags: {
      org: { required: true, description: 'Firm id or slug' },
      name: { description: 'Display name' },
      slug: { description: 'New slug' },
      timezone: { description: 'IANA timezone' },
      number: { description: 'Receptionist number (E.164), or "none"' },
      status: { description: 'Firm status, e.g. onboarding, live, suspended' },
      plan: { description: 'Plan name, or "none"' },
      'billing-status': { description: 'e.g. trialing, active, past_due, or "none"' },
      'trial-ends-at': { description: 'ISO 8601, or "none"' },
      'payment-method': { description: 'on or off' },
      'owner-email': { description: "Owner's email, or none" },
    },
    async run(ctx) {
      const account = ctx.app.get(AccountService);
      const org = await account.resolveOrg(req(ctx, 'org'));
      const pm = str(ctx, 'payment-method');
      if (pm !== undefined && pm !== 'on' && pm !== 'off') throw new CliError('--payment-method must be on or off', 2);
      const updated = await account.updateOrg(org.id, {
        name: str(ctx, 'name'),
        slug: str(ctx, 'slug'),
        timezone: str(ctx, 'timezone'),
        number: nullable(str(ctx, 'number')),
        status: str(ctx, 'status'),
        plan: nullable(str(ctx, 'plan')),
        billingStatus: nullable(str(ctx, 'billing-status')),
        trialEndsAt: optionalDate(str(ctx, 'trial-ends-at'), 'trial-ends-at'),
        paymentMethodOnFile: pm === undefined ? undefined : pm === 'on',
        ownerEmail: nullable(str(ctx, 'owner-email')),
      });
      return view(updated);
    },
  },
  {
    name: 'org list',
    summary: 'List firms',
    flags: {},
    async run(ctx) {
      return { orgs: (await ctx.app.get(AccountService).listOrgs()).map(view) };
    },
    human: (r) =>
      (r.orgs as ReturnType<typeof view>[]).map((o) => `${o.id}  ${o.slug}  ${o.display_name ?? ''}  ${o.status}`).join('\n') || 'no firms',
  },
];
