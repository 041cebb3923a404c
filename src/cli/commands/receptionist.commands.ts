import { AccountService } from '../../account/index.js';
import { ReceptionistService } from '../../receptionist/index.js';
import { CliError, req, type CliCommand, type CliContext } from '../command.js';

async function readSettings(ctx: CliContext): Promise<unknown> {
  const text = await ctx.readInput(req(ctx, 'file'));
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(`--file does not hold valid JSON`);
  }
}

const flags = {
  org: { required: true, description: 'Firm id or slug' },
  file: { required: true, description: 'Settings JSON file, or - for stdin' },
};

export const receptionistCommands: CliCommand[] = [
  {
    name: 'receptionist publish',
    summary: 'Validate and publish receptionist settings (bumps version, clears the draft)',
    flags,
    async run(ctx) {
      const org = await ctx.app.get(AccountService).resolveOrg(req(ctx, 'org'));
      const r = await ctx.app.get(ReceptionistService).publish(org.id, await readSettings(ctx));
      return { org_id: org.id, version: r.version, published_at: r.published_at, draft_pending: false };
    },
    human: (r) => `published version ${r.version}`,
  },
  {
    name: 'receptionist draft',
    summary: 'Validate and store a draft (draft_pending until the next publish)',
    flags,
    async run(ctx) {
      const org = await ctx.app.get(AccountService).resolveOrg(req(ctx, 'org'));
      const r = await ctx.app.get(ReceptionistService).saveDraft(org.id, await readSettings(ctx));
      return { org_id: org.id, version: r.version, draft_pending: r.draft_pending };
    },
    human: () => 'draft saved',
  },
];
