import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AccountService } from '../../../src/account';
import { COMMANDS } from '../../../src/cli/commands';
import { parseArgs } from '../../../src/cli/parse-args';
import { DEMO_SETTINGS, simulatedCallDocument } from '../../../src/demo';
import { newMediumService, type MediumService } from '../../support/medium';

type Json = Record<string, unknown>;

/**
 * A JSON object's shape as the README writes it: `{"id","slug"}`, a member holding a list `"orgs":[...]`, one
 * holding an object `"endpoint":{...}`. Of a list's first item (or a nested object), the member names alone.
 */
function shapeOf(value: Json): string[] {
  const members = Object.entries(value).map(
    ([k, v]) => `"${k}"${Array.isArray(v) ? ':[...]' : v !== null && typeof v === 'object' ? ':{...}' : ''}`,
  );
  const inner = Object.values(value)
    .map((v) => (Array.isArray(v) ? v[0] : v))
    .filter((v): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v))
    .map(
      (v) =>
        `{${Object.keys(v)
          .map((k) => `"${k}"`)
          .join(',')}}`,
    );
  return [`{${members.join(',')}}`, ...inner];
}

/** The rows of the README's Admin CLI table: the command as written, and what it says the command prints. */
function readmeRows(): { usage: string; prints: string }[] {
  const readme = readFileSync(resolve(process.cwd(), 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Admin CLI'), readme.indexOf('\n## ', readme.indexOf('## Admin CLI') + 1));
  return section
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => {
      const [usage, prints] = l
        .slice(2, -2)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim());
      return { usage: usage.replace(/\\\|/g, '|'), prints: prints.replace(/\\\|/g, '|') };
    });
}

/**
 * The README's Admin CLI table shows what each command really prints with
 * `--json`: every command is run (its `run`, whose result the CLI prints as
 * is, in the CLI's own Nest context) and its output's shape must be in the
 * command's row. A command without a row, or a row saying another shape,
 * fails.
 */
describe("the README's Admin CLI table", () => {
  let m: MediumService<AccountService>;

  beforeAll(async () => {
    m = await newMediumService(AccountService, { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  });
  afterAll(() => m.close());

  const files: Record<string, string> = {
    'settings.json': JSON.stringify(DEMO_SETTINGS),
    'call.json': JSON.stringify(
      simulatedCallDocument({
        callId: 'call_readme_cli_1',
        startedAt: null,
        now: new Date(),
        answered: true,
        category: 'new_injury_lead',
        outcome: 'connected',
        lead: true,
        callerNumber: '+13125550142',
        processingComplete: true,
      }),
    ),
  };
  /** Runs one command line as the CLI does, and returns the object `--json` prints. */
  const cli = async (line: string[]): Promise<Json> => {
    const { command, flags } = parseArgs([...line, '--json'], COMMANDS);
    return command.run({ app: m.module, flags, readInput: async (path) => files[path] });
  };

  it('shows the --json shape each command prints', async () => {
    const seen: { command: string; result: Json }[] = [];
    const run = async (line: string[]) => {
      const result = await cli(line);
      seen.push({ command: parseArgs(line, COMMANDS).command.name, result });
      return result;
    };
    const slug = 'readme-cli-firm';
    await run(['org', 'create', '--name', 'README CLI Firm', '--slug', slug]);
    await run(['org', 'update', '--org', slug, '--status', 'live']);
    await run(['org', 'list']);
    const key = await run(['key', 'create', '--org', slug, '--name', 'k', '--set', 'read']);
    await run(['key', 'list', '--org', slug]);
    await run(['key', 'revoke', '--id', String(key.id)]);
    await run(['receptionist', 'publish', '--org', slug, '--file', 'settings.json']);
    await run(['receptionist', 'draft', '--org', slug, '--file', 'settings.json']);
    await run(['call', 'ingest', '--org', slug, '--file', 'call.json']);
    const ogg = resolve(process.cwd(), 'fixtures/recordings/injury-caller.ogg');
    await run(['call', 'recording', '--org', slug, '--call', 'call_readme_cli_1', '--file', ogg]);
    await run(['call', 'recording', '--org', slug, '--call', 'call_readme_cli_1', '--remove']);
    const endpoint = await run(['endpoint', 'create', '--org', slug, '--url', 'http://127.0.0.1:9/hook', '--types', 'lead.updated']);
    const id = String(endpoint.id);
    await run(['endpoint', 'disable', '--id', id]);
    await run(['endpoint', 'enable', '--id', id]);
    await run(['endpoint', 'list', '--org', slug]);
    await run(['endpoint', 'update', '--id', id, '--types', 'lead.created,lead.updated', '--description', '']);
    await run(['endpoint', 'rotate-secret', '--id', id]);
    await run(['endpoint', 'delete', '--id', id]);
    // An ed25519 endpoint prints its public key where a secret would be, at creation and at each rotation.
    const signed = await run([
      'endpoint',
      'create',
      '--org',
      slug,
      '--url',
      'http://127.0.0.1:9/v1a',
      '--types',
      'lead.updated',
      '--signature',
      'ed25519',
    ]);
    await run(['endpoint', 'rotate-secret', '--id', String(signed.id)]);
    await run(['endpoint', 'delete', '--id', String(signed.id)]);
    await run(['console', 'link', '--org', slug]);
    await run(['console', 'link', '--org', slug, '--read-only']);
    await run(['console', 'sessions', '--org', slug]);
    await run(['console', 'revoke', '--org', slug, '--all']);
    await run(['audit', 'list', '--org', slug]);
    await run(['demo', 'seed']);

    const rows = readmeRows();
    // Every command has a row (migrate is the CLI's own, outside COMMANDS), and every command was run above.
    const named = (name: string) => rows.filter((r) => r.usage.startsWith(`\`${name} `) || r.usage === `\`${name}\``);
    expect([...COMMANDS.map((c) => c.name), 'migrate'].filter((name) => named(name).length === 0)).toEqual([]);
    expect(COMMANDS.map((c) => c.name).filter((name) => !seen.some((s) => s.command === name))).toEqual([]);
    const wrong = seen.flatMap(({ command, result }) => {
      const shape = shapeOf(result);
      return named(command).some((r) => shape.every((part) => r.prints.includes(part)))
        ? []
        : [
            `${command} prints ${shape.join(' with ')}; README: ${named(command)
              .map((r) => r.prints)
              .join(' | ')}`,
          ];
    });
    expect(wrong).toEqual([]);
  });
});
