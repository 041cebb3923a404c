import { ConsoleSignInService } from '../../console/index.js';
import { livemodeFlag, MODE_FLAG, req, type CliCommand } from '../command.js';

export const consoleCommands: CliCommand[] = [
  {
    name: 'console link',
    summary: "A one-time sign-in link to the firm's endpoint console (works once, for 15 minutes)",
    flags: {
      org: { required: true, description: 'Firm id or slug' },
      mode: { ...MODE_FLAG, description: 'live (default) or test: which endpoints the console shows and changes' },
    },
    async run(ctx) {
      const livemode = livemodeFlag(ctx);
      const link = await ctx.app.get(ConsoleSignInService).createLink(req(ctx, 'org'), livemode);
      return { url: link.url, expires_at: link.expiresAt.toISOString() };
    },
    human: (r) =>
      `console link for the firm's owner (works once, until ${String(r.expires_at)}):\n\n  ${String(r.url)}\n\nIt is a credential: send it only to the owner.`,
  },
];
