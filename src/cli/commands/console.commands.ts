import { durationText } from '../../common/duration-text.js';
import { CONSOLE_LINK_LIFETIME_MS, ConsoleSessionsService, ConsoleSignInService, type ConsoleSessionView } from '../../console/index.js';
import { CliError, livemodeFlag, MODE_FLAG, req, str, type CliCommand } from '../command.js';

const sessionLine = (s: ConsoleSessionView) =>
  `${s.id}  ${s.mode}  ${s.read_only ? 'read-only' : 'full'}  started ${s.created_at}  last seen ${s.last_seen_at}  ends ${s.expires_at}`;

export const consoleCommands: CliCommand[] = [
  {
    name: 'console link',
    summary: `A one-time sign-in link to the firm's endpoint console (works once, for ${durationText(CONSOLE_LINK_LIFETIME_MS, 'minute')})`,
    flags: {
      org: { required: true, description: 'Firm id or slug' },
      mode: { ...MODE_FLAG, description: 'live (default) or test: which endpoints the console shows and changes' },
      'read-only': { type: 'boolean', description: 'Its session sees everything and changes nothing (no buttons; its changes answer 403)' },
    },
    async run(ctx) {
      const livemode = livemodeFlag(ctx);
      const link = await ctx.app.get(ConsoleSignInService).createLink(req(ctx, 'org'), livemode, ctx.flags['read-only'] === true);
      return { url: link.url, expires_at: link.expiresAt.toISOString() };
    },
    human: (r) =>
      `console link for the firm's owner (works once, until ${String(r.expires_at)}):\n\n  ${String(r.url)}\n\nIt is a credential: send it only to the owner.`,
  },
  {
    name: 'console sessions',
    summary: "The firm's console sessions still alive (ids are handles for console revoke, never the cookie)",
    flags: { org: { required: true, description: 'Firm id or slug' } },
    run: async (ctx) => ({ sessions: await ctx.app.get(ConsoleSessionsService).list(req(ctx, 'org')) }),
    human: (r) => (r.sessions as ConsoleSessionView[]).map(sessionLine).join('\n') || 'no console sessions',
  },
  {
    name: 'console revoke',
    summary: 'End console sessions of the firm: one (--session) or all (--all); each is signed out at its next request',
    flags: {
      org: { required: true, description: 'Firm id or slug' },
      session: { description: 'The session id (from console sessions)' },
      all: { type: 'boolean', description: "Every one of the firm's sessions" },
    },
    async run(ctx) {
      const session = str(ctx, 'session');
      const all = ctx.flags.all === true;
      if ((session === undefined) === !all) throw new CliError('give exactly one of --session <id> or --all', 2);
      return { revoked: await ctx.app.get(ConsoleSessionsService).revoke(req(ctx, 'org'), all ? null : session!) };
    },
    human: (r) => {
      const ids = r.revoked as string[];
      return ids.length ? `ended ${ids.length} console session(s):\n${ids.join('\n')}` : 'no console session was alive';
    },
  },
];
