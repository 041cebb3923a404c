import { AccountService } from '../../account/index.js';
import { ApiKeyService, KEY_PREFIX, TEST_KEY_PREFIX, type ApiKeySummary } from '../../auth/index.js';
import { PERMISSION_SET_NAMES } from '../../common/http/scopes.js';
import { CliError, MODE_FLAG, livemodeFlag, req, str, type CliCommand } from '../command.js';

export const keyCommands: CliCommand[] = [
  {
    name: 'key create',
    summary: 'Create an API key (the full key is shown only now)',
    flags: {
      org: { required: true, description: 'Firm id or slug' },
      name: { required: true, description: 'A name for the key' },
      set: { required: true, description: `Permission set: ${PERMISSION_SET_NAMES.join(', ')}` },
      'expires-at': { description: 'ISO 8601 expiry (default: never)' },
      mode: MODE_FLAG,
    },
    async run(ctx) {
      const livemode = livemodeFlag(ctx);
      const org = await ctx.app.get(AccountService).resolveOrg(req(ctx, 'org'));
      const expiresRaw = str(ctx, 'expires-at');
      const expiresAt = expiresRaw ? new Date(expiresRaw) : null;
      if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new CliError('--expires-at must be an ISO 8601 date-time', 2);
      const { key, summary } = await ctx.app
        .get(ApiKeyService)
        .create({ orgId: org.id, name: req(ctx, 'name'), set: req(ctx, 'set'), expiresAt, livemode });
      // The key's start (svc_live_ or svc_test_) says its mode; the --json members are those it always had.
      return { id: summary.id, key, prefix: summary.prefix, last4: summary.last4, scopes: summary.scopes, expires_at: summary.expires_at };
    },
    human: (r) =>
      `created ${String(r.key).startsWith(TEST_KEY_PREFIX) ? 'test ' : ''}key ${r.id}\n\n  ${r.key}\n\nStore it now: it cannot be shown again.\nscopes: ${(r.scopes as string[]).join(' ')}`,
  },
  {
    name: 'key revoke',
    summary: 'Revoke an API key (permanent; takes effect on its next request)',
    flags: { id: { required: true, description: 'Key id' } },
    async run(ctx) {
      const k = await ctx.app.get(ApiKeyService).revoke(req(ctx, 'id'));
      return { id: k.id, status: k.status, revoked_at: k.revoked_at };
    },
    human: (r) => `key ${r.id} revoked`,
  },
  {
    name: 'key list',
    summary: "List a firm's API keys (never the keys themselves)",
    flags: { org: { required: true, description: 'Firm id or slug' } },
    async run(ctx) {
      const org = await ctx.app.get(AccountService).resolveOrg(req(ctx, 'org'));
      return { keys: await ctx.app.get(ApiKeyService).list(org.id) };
    },
    human: (r) =>
      (r.keys as ApiKeySummary[])
        .map(
          (k) =>
            `${k.id}  ${k.mode === 'test' ? TEST_KEY_PREFIX : KEY_PREFIX}${k.prefix}…${k.last4}  ${k.mode}  ${k.status.padEnd(7)}  ${k.permission_set.padEnd(32)}  ${k.name}  last used ${k.last_used_at ?? 'never'}`,
        )
        .join('\n') || 'no keys',
  },
];
