import { parseArgs as parseTokens } from 'node:util';
import { CliError, type CliCommand } from './command.js';

export interface ParsedArgs {
  command: CliCommand;
  flags: Record<string, string | boolean | undefined>;
  json: boolean;
}

type Token = NonNullable<ReturnType<typeof parseTokens>['tokens']>[number];

/** The command's words come first: "org create", "key list"... */
function findCommand(argv: string[], commands: CliCommand[]): { command: CliCommand; rest: string[] } {
  const words: string[] = [];
  while (words.length < argv.length && !argv[words.length].startsWith('--')) words.push(argv[words.length]);
  const name = words.join(' ');
  const command = commands.find((c) => c.name === name) ?? commands.find((c) => c.name === words.slice(0, 2).join(' '));
  if (!command)
    throw new CliError(name ? `unknown command "${name}"; run with "help" to list commands` : 'no command given; run with "help"', 2);
  const size = command.name.split(' ').length;
  if (size !== words.length) throw new CliError(`unexpected argument "${words.slice(size).join(' ')}"`, 2);
  return { command, rest: argv.slice(size) };
}

function flagValue(command: CliCommand, token: Extract<Token, { kind: 'option' }>): string | boolean {
  const spec = command.flags[token.name];
  if (!spec) {
    const takes =
      Object.keys(command.flags)
        .map((f) => `--${f}`)
        .join(', ') || 'no flags';
    throw new CliError(`unknown flag ${token.rawName} for "${command.name}"; it takes ${takes}`, 2);
  }
  if (spec.type === 'boolean') return token.value === undefined ? true : token.value === 'true';
  const value = token.value;
  // A flag followed by another flag has no value of its own ("-" is a value: standard input).
  if (value === undefined || (!token.inlineValue && value.startsWith('--') && value !== '-'))
    throw new CliError(`${token.rawName} needs a value`, 2);
  return value;
}

/** `<group> <action> [--flag value | --flag=value | --switch] [--json]`, tokenised by node:util's parseArgs. */
export function parseArgs(argv: string[], commands: CliCommand[]): ParsedArgs {
  const { command, rest } = findCommand(argv, commands);
  const options = Object.fromEntries(
    Object.entries(command.flags).map(([name, spec]) => [
      name,
      { type: spec.type === 'boolean' ? ('boolean' as const) : ('string' as const) },
    ]),
  );
  const { tokens = [] } = parseTokens({
    args: rest,
    options: { ...options, json: { type: 'boolean' } },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const flags: Record<string, string | boolean | undefined> = {};
  let json = false;
  for (const token of tokens) {
    if (token.kind === 'positional') throw new CliError(`unexpected argument "${token.value}"`, 2);
    if (token.kind === 'option-terminator') throw new CliError('unexpected argument "--"', 2);
    if (!token.rawName.startsWith('--')) throw new CliError(`unexpected argument "${token.rawName}"`, 2);
    if (token.name === 'json' && token.rawName === '--json') json = true;
    else flags[token.name] = flagValue(command, token);
  }
  for (const [flag, spec] of Object.entries(command.flags)) {
    if (spec.required && (flags[flag] === undefined || flags[flag] === ''))
      throw new CliError(`--${flag} is required for "${command.name}"`, 2);
  }
  return { command, flags, json };
}
