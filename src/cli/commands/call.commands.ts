import { AccountService } from '../../account/index.js';
import { IngestionService } from '../../ingestion/index.js';
import { CliError, req, type CliCommand } from '../command.js';

/** One JSON document, a JSON array of them, or NDJSON (one per line). */
export function parseCallDocuments(text: string): unknown[] {
  const trimmed = text.trim();
  if (!trimmed) throw new CliError('the input holds no call document');
  try {
    const value = JSON.parse(trimmed);
    const docs = Array.isArray(value) ? value : [value];
    if (!docs.length) throw new CliError('the JSON array holds no call document');
    return docs;
  } catch (e) {
    if (e instanceof CliError) throw e;
  }
  const docs: unknown[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    try {
      docs.push(JSON.parse(line));
    } catch {
      throw new CliError(`line ${i + 1} is not valid JSON (the input must be one JSON document, a JSON array, or NDJSON)`);
    }
  });
  return docs;
}

export const callCommands: CliCommand[] = [
  {
    name: 'call ingest',
    summary: 'Ingest call documents as the receptionist pipeline hands them over (new call or re-processing)',
    flags: {
      org: { required: true, description: 'Firm id or slug' },
      file: {
        required: true,
        description: 'A JSON call document, a JSON array of them, or NDJSON; - for stdin. call_id is generated when absent.',
      },
    },
    async run(ctx) {
      const org = await ctx.app.get(AccountService).resolveOrg(req(ctx, 'org'));
      const documents = parseCallDocuments(await ctx.readInput(req(ctx, 'file')));
      const results = await ctx.app.get(IngestionService).ingestMany(org.id, documents, { livemode: true });
      return { call_ids: results.map((r) => r.call_id) };
    },
    human: (r) => (r.call_ids as string[]).join('\n'),
  },
];
