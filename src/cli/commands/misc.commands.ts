import { AccountService } from '../../account/index.js';
import { AuditService } from '../../audit/index.js';
import { DemoService } from '../../demo/index.js';
import { req, str, type CliCommand } from '../command.js';

export const miscCommands: CliCommand[] = [
  {
    name: 'demo seed',
    summary: 'Create a demo firm with one key per permission set',
    flags: {},
    async run(ctx) {
      const r = await ctx.app.get(DemoService).seed();
      return { org_id: r.org_id, slug: r.slug, keys: r.keys };
    },
    human: (r) =>
      `demo firm ${r.slug} (${r.org_id})\n` +
      Object.entries(r.keys as Record<string, string>)
        .map(([set, key]) => `  ${set.padEnd(34)} ${key}`)
        .join('\n'),
  },
  {
    name: 'audit list',
    summary: "Show a firm's audit log, newest first",
    flags: {
      org: { required: true, description: 'Firm id or slug' },
      action: { description: 'Only this action, e.g. api_key.created' },
      limit: { description: 'At most this many (default 100)' },
    },
    async run(ctx) {
      const org = await ctx.app.get(AccountService).resolveOrg(req(ctx, 'org'));
      const limit = str(ctx, 'limit');
      return {
        entries: await ctx.app
          .get(AuditService)
          .list(org.id, { action: str(ctx, 'action'), limit: limit ? Math.min(1000, Number(limit) || 100) : 100 }),
      };
    },
  },
];
