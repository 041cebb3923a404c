import { AccountService } from '../../account/index.js';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../events/index.js';
import {
  DEFAULT_ROTATION_OVERLAP_MS,
  WebhookEndpointsService,
  WebhookEndpointUpdatesService,
  type SignatureScheme,
  type WebhookEndpointDto,
} from '../../webhooks/index.js';
import { CliError, livemodeFlag, req, str, type CliCommand, type CliContext } from '../command.js';

const service = (ctx: CliContext) => ctx.app.get(WebhookEndpointsService);
/** How the endpoint signs: its secret's last 4 (v1), or its whole public key (v1a: not a secret). */
const signedWith = (e: WebhookEndpointDto) => (e.public_key ? `v1a ${e.public_key}` : `v1 secret …${e.secret_last4}`);
const line = (e: WebhookEndpointDto) =>
  `${e.id}  ${e.livemode ? 'live' : 'test'}  ${e.status}${e.disabled_reason ? ` (${e.disabled_reason})` : ''}  ${e.url}  [${e.event_types.join(',')}]  ${signedWith(e)}${e.description ? `  ${e.description}` : ''}`;

/** --signature: hmac (v1, the default) or ed25519 (v1a); the scheme names are taken too. */
const SIGNATURE_FLAG = {
  description: 'hmac (default: Standard Webhooks v1, a whsec_ secret) or ed25519 (v1a: a public key to verify with, no secret shown)',
};
const SCHEMES: Record<string, SignatureScheme> = { hmac: 'v1', 'hmac-sha256': 'v1', v1: 'v1', ed25519: 'v1a', v1a: 'v1a' };

function signatureFlag(ctx: CliContext): SignatureScheme | undefined {
  const raw = str(ctx, 'signature');
  if (raw === undefined) return undefined;
  const scheme = SCHEMES[raw.trim().toLowerCase()];
  if (!scheme) throw new CliError(`--signature must be hmac or ed25519, not "${raw}"`, 2);
  return scheme;
}

const publicKeyNote = (key: string) =>
  `  public key: ${key}\n\nReceivers verify the webhook-signature v1a,... value with it (ed25519); it is not a secret, and the service keeps the private key.`;

const SUBSCRIBABLE_TYPES = SUBSCRIBABLE_EVENT_TYPES.join(', ');

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
    summary: 'Add a webhook endpoint (the signing secret is shown only now; with --signature ed25519, its public key)',
    flags: {
      org: { required: true, description: 'Firm id or slug' },
      url: { required: true, description: 'Receiver URL (https; http only with WEBHOOK_ALLOW_PRIVATE_TARGETS=true)' },
      types: { required: true, description: `Comma-separated: ${SUBSCRIBABLE_TYPES}` },
      description: { description: 'A label' },
      mode: { description: 'live (default): receives live events; test: receives test-mode events only' },
      signature: SIGNATURE_FLAG,
    },
    async run(ctx) {
      const livemode = livemodeFlag(ctx);
      const signature = signatureFlag(ctx);
      const org = await ctx.app.get(AccountService).resolveOrg(req(ctx, 'org'));
      const created = await service(ctx).create({
        orgId: org.id,
        url: req(ctx, 'url'),
        eventTypes: req(ctx, 'types'),
        description: str(ctx, 'description'),
        livemode,
        signature,
      });
      // --json keeps the members it always had; `endpoint list` shows each endpoint's livemode. A v1a endpoint has no
      // secret to show: its public key instead.
      if (created.publicKey !== undefined) return { id: created.endpoint.id, public_key: created.publicKey };
      return { id: created.endpoint.id, secret: created.secret };
    },
    human: (r) =>
      r.public_key
        ? `created webhook endpoint ${r.id} (signature v1a, ed25519)\n\n${publicKeyNote(String(r.public_key))}`
        : `created webhook endpoint ${r.id}\n\n  signing secret: ${r.secret}\n\nStore it now: it cannot be shown again.`,
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
    summary:
      'New signing secret (shown only now) or, for an ed25519 endpoint, key pair (its public key); the old one also signs for the overlap',
    flags: {
      id: { required: true, description: 'Endpoint id' },
      overlap: { description: 'How long deliveries carry both signatures: 24h (default), 90m, 2d, 0 (none); at most 7d' },
      signature: {
        description: "hmac or ed25519: the new key's scheme (default: the endpoint's own); the old one signs too for the overlap",
      },
    },
    run: async (ctx) => ({ ...(await service(ctx).rotateSecret(req(ctx, 'id'), overlapMs(ctx), undefined, signatureFlag(ctx))) }),
    human: (r) =>
      (r.public_key
        ? `rotated the signing key of webhook endpoint ${r.id} (signature v1a, ed25519)\n\n${publicKeyNote(String(r.public_key))}\n\n`
        : `rotated the signing secret of webhook endpoint ${r.id}\n\n  new signing secret: ${r.secret}\n\n`) +
      (r.previous_secret_expires_at
        ? `Until ${r.previous_secret_expires_at} every delivery is signed with both the old and the new key; after that, only the new one.\n`
        : 'The old key no longer signs.\n') +
      (r.public_key ? '' : 'Store it now: it cannot be shown again.'),
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
