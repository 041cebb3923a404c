import { CliError, type CliCommand } from './command';
import { parseArgs } from './parse-args';

const commands: CliCommand[] = [
  {
    name: 'org create',
    summary: '',
    flags: { name: { required: true, description: '' }, slug: { description: '' } },
    run: async () => ({}),
  },
  {
    name: 'call recording',
    summary: '',
    flags: { file: { description: '' }, remove: { type: 'boolean', description: '' } },
    run: async () => ({}),
  },
  { name: 'org list', summary: '', flags: {}, run: async () => ({}) },
];

const refusal = (argv: string[]) => {
  try {
    parseArgs(argv, commands);
  } catch (err) {
    if (err instanceof CliError) return { message: err.message, exitCode: err.exitCode };
    throw err;
  }
  throw new Error('parsed');
};

describe('CLI arguments', () => {
  it('reads the command words, flags as "--f v" or "--f=v", switches and --json', () => {
    const a = parseArgs(['org', 'create', '--name', 'Harper Law', '--slug=harper', '--json'], commands);
    expect(a.command.name).toBe('org create');
    expect(a.flags).toEqual({ name: 'Harper Law', slug: 'harper' });
    expect(a.json).toBe(true);
    expect(parseArgs(['call', 'recording', '--remove'], commands).flags).toEqual({ remove: true });
    expect(parseArgs(['call', 'recording', '--remove=false'], commands).flags).toEqual({ remove: false });
    expect(parseArgs(['call', 'recording', '--file', '-'], commands).flags).toEqual({ file: '-' });
    expect(parseArgs(['org', 'list'], commands).json).toBe(false);
  });

  it('refuses what it cannot read with exit code 2 and a message naming it', () => {
    expect(refusal(['org', 'delete'])).toEqual({ message: 'unknown command "org delete"; run with "help" to list commands', exitCode: 2 });
    expect(refusal([])).toEqual({ message: 'no command given; run with "help"', exitCode: 2 });
    expect(refusal(['org', 'list', 'extra'])).toEqual({ message: 'unexpected argument "extra"', exitCode: 2 });
    expect(refusal(['org', 'create', '--name', 'a', 'b'])).toEqual({ message: 'unexpected argument "b"', exitCode: 2 });
    expect(refusal(['org', 'create', '--name', 'a', '-x'])).toEqual({ message: 'unexpected argument "-x"', exitCode: 2 });
    expect(refusal(['org', 'create', '--name', 'a', '--nmae', 'b'])).toEqual({
      message: 'unknown flag --nmae for "org create"; it takes --name, --slug',
      exitCode: 2,
    });
    expect(refusal(['org', 'list', '--org', 'x'])).toEqual({
      message: 'unknown flag --org for "org list"; it takes no flags',
      exitCode: 2,
    });
    expect(refusal(['org', 'create', '--name'])).toEqual({ message: '--name needs a value', exitCode: 2 });
    expect(refusal(['org', 'create', '--name', '--json'])).toEqual({ message: '--name needs a value', exitCode: 2 });
    expect(refusal(['org', 'create', '--slug', 'a'])).toEqual({ message: '--name is required for "org create"', exitCode: 2 });
    expect(refusal(['org', 'create', '--name='])).toEqual({ message: '--name is required for "org create"', exitCode: 2 });
  });
});
