import { stat } from 'node:fs/promises';
import { AccountService } from '../../account/index.js';
import { RecordingsService } from '../../recordings/index.js';
import { CliError, req, str, type CliCommand } from '../command.js';

export const recordingCommands: CliCommand[] = [
  {
    name: 'call recording',
    summary: "Store or remove a call's recording (stands in for the receptionist pipeline)",
    flags: {
      org: { required: true, description: 'Firm id or slug' },
      call: { required: true, description: 'Call id' },
      file: { description: 'Ogg Opus file to store as the recording (replaces an earlier one)' },
      remove: { type: 'boolean', description: 'Remove the recording instead; every link to it stops working' },
    },
    async run(ctx) {
      const file = str(ctx, 'file');
      const remove = ctx.flags.remove === true;
      if ((file !== undefined && file !== '') === remove) throw new CliError('give exactly one of --file F.ogg or --remove', 2);
      const org = await ctx.app.get(AccountService).resolveOrg(req(ctx, 'org'));
      const callId = req(ctx, 'call');
      const recordings = ctx.app.get(RecordingsService);
      if (remove) return { ...(await recordings.remove(org.id, callId, 'cli')) };
      const info = await stat(file!).catch(() => null);
      if (!info?.isFile()) throw new CliError(`cannot read file "${file}"`);
      return { ...(await recordings.storeFromFile(org.id, callId, file!, 'cli')) };
    },
    human: (r) =>
      'removed' in r
        ? r.removed
          ? `recording of call ${r.call_id} removed; links to it no longer work`
          : `call ${r.call_id} had no recording`
        : `stored ${r.size_bytes} bytes as the recording of call ${r.call_id}${r.replaced ? ' (replaced the earlier one)' : ''}`,
  },
];
