import { AccountService } from '../../account/index.js';
import {
  DEFAULT_ROTATION_OVERLAP_MS,
  WebhookEndpointsService,
  WebhookEndpointUpdatesService,
  type WebhookEndpointDto,
} from '../../webhooks/index.js';
import { CliError, livemodeFlag, req, str, type CliCommand, type CliContext } from '../command.js';

const service = (ctx: CliContext) => ctx.app.get(WebhookEndpointsService);
const line = (e: WebhookEndpointDto) =>
  `${e.id}  ${e.livemode ? 'live' : 'test'}  ${e.status}${e.disabled_reason ? ` (${e.disabled_reason})` : ''}  ${e.url}  [${e.event_types.join(',')}]  secret …${e.secret_last4}${e.description ? `  ${e.description}` : ''}`;

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 };

/** "24h", "90m", "30s", "2d" or "0" (no overlap). */
function overlapMs(ctx: CliContext): number {
  const raw = str(ctx, 'overlap');
  if (raw === undefined) return DEFAULT_ROTATION_OVERLAP_MS;
  const m = /^(\d+)([smhd]?)$/.exec(raw.trim());
  if (!m || (m[2] === '' && m[1] !== '0')) throw new CliError(`--overlap must look like 24h, 90m, 30s, 2d or 0, not "${raw}"`, 2);
  return Number(m[1]) * (UNIT_MS[m[2]] ?? 0);
}

export const endpointCommands: CliCommand[] = [
  {
    name: 'endpoint create',
    summary: 'Add a webhook endpoint (the signing secret is shown only now)',
    flags: {
      org: { required: true, description: 'Firm id or slug' },
      url: { required: true, description: 'Receiver URL (https; http only with WEBHOOK_ALLOW_PRIVATE_TARGETS=true)' },
      types: { required: true, description: 'Comma-separated: call.completed, lead.created, lead.updated' },
      description: { description: 'A label' },
      mode: { description: 'live (default): receives live events; test: receives test-mode events only' },
    },
    async run(ctx) {
      const livemode = livemodeFlag(ctx);
      const org = await ctx.app.get(AccountService).resolveOrg(req(ctx, 'org'));
      const { endpoint, secret } = await service(ctx).create({
        orgId: org.id,
        url: req(ctx, 'url'),
        eventTypes: req(ctx, 'types'),
        description: str(ctx, 'description'),
        livemode,
      });
      // --json keeps the members it always had; `endpoint list` shows each endpoint's livemode.
      return { id: endpoint.id, secret };
    },
    human: (r) => `created webhook endpoint ${r.id}\n\n  signing secret: ${r.secret}\n\nStore it now: it cannot be shown again.`,
  },
  {
    name: 'endpoint update',
    summary: "Change an endpoint's description or event types (its URL cannot change: add a new endpoint for a new URL)",
    flags: {
      id: { required: true, description: 'Endpoint id' },
      description: { description: 'The new label ("" clears it)' },
      types: { description: 'The new subscriptions, comma-separated: call.completed, lead.created, lead.updated (at least one)' },
      url: { description: 'Refused: an endpoint keeps its URL; a new URL needs a new endpoint (endpoint create)' },
    },
    // The endpoint as the API shows it (GET /v1/webhook-endpoints); the rules are the service's (the console's "Save" too).
    run: async (ctx) =>
      ({
        ...(await ctx.app
          .get(WebhookEndpointUpdatesService)
          .update(req(ctx, 'id'), { description: str(ctx, 'description'), eventTypes: str(ctx, 'types'), url: str(ctx, 'url') })),
      }) as Record<string, unknown>,
    human: (r) => line(r as unknown as WebhookEndpointDto),
  },
  {
    name: 'endpoint rotate-secret',
    summary: 'New signing secret (shown only now); the old one also signs for the overlap',
    flags: {
      id: { required: true, description: 'Endpoint id' },
      overlap: { description: 'How long deliveries carry both signatures: 24h (default), 90m, 2d, 0 (none); at most 7d' },
    },
    run: async (ctx) => ({ ...(await service(ctx).rotateSecret(req(ctx, 'id'), overlapMs(ctx))) }),
    human: (r) =>
      `rotated the signing secret of webhook endpoint ${r.id}\n\n  new signing secret: ${r.secret}\n\n` +
      (r.previous_secret_expires_at
        ? `Until ${r.previous_secret_expires_at} every delivery is signed with both the old and the new secret; after that, only the new one.\n`
        : 'The old secret no longer signs.\n') +
      'Store it now: it cannot be shown again.',
  },
  {
    name: 'endpoint disable',
    summary: 'Turn an endpoint off (reason owner); nothing is sent while off, nor later',
    flags: { id: { required: true, description: 'Endpoint id' } },
    run: async (ctx) => ({ endpoint: await service(ctx).disable(req(ctx, 'id')) }),
    human: (r) => line(r.endpoint as WebhookEndpointDto),
  },
  {
    name: 'endpoint enable',
    summary: 'Turn an endpoint back on',
    flags: { id: { required: true, description: 'Endpoint id' } },
    run: async (ctx) => ({ endpoint: await service(ctx).enable(req(ctx, 'id')) }),
    human: (r) => line(r.endpoint as WebhookEndpointDto),
  },
  {
    name: 'endpoint delete',
    summary: 'Delete an endpoint and its deliveries',
    flags: { id: { required: true, description: 'Endpoint id' } },
    run: (ctx) => service(ctx).delete(req(ctx, 'id')),
    human: (r) => `deleted webhook endpoint ${r.id}`,
  },
  {
    name: 'endpoint list',
    summary: "List a firm's webhook endpoints (never their secrets)",
    flags: { org: { required: true, description: 'Firm id or slug' } },
    async run(ctx) {
      const org = await ctx.app.get(AccountService).resolveOrg(req(ctx, 'org'));
      return { endpoints: await service(ctx).list(org.id, null) };
    },
    human: (r) => (r.endpoints as WebhookEndpointDto[]).map(line).join('\n') || 'no webhook endpoints',
  },
];
