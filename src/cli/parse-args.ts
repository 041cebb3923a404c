import { CliError, type CliCommand } from './command.js';

export interface ParsedArgs {
  command: CliCommand;
  flags: Record<string, string | boolean | undefined>;
  json: boolean;
}

/** `<group> <action> [--flag value | --flag=value | --switch] [--json]` */
export function parseArgs(argv: string[], commands: CliCommand[]): ParsedArgs {
  const words: string[] = [];
  let i = 0;
  while (i < argv.length && !argv[i].startsWith('--')) words.push(argv[i++]);
  const name = words.join(' ');
  const command = commands.find((c) => c.name === name) ?? commands.find((c) => c.name === words.slice(0, 2).join(' '));
  if (!command)
    throw new CliError(name ? `unknown command "${name}"; run with "help" to list commands` : 'no command given; run with "help"', 2);
  if (command.name.split(' ').length !== words.length)
    throw new CliError(`unexpected argument "${words.slice(command.name.split(' ').length).join(' ')}"`, 2);
  const flags: Record<string, string | boolean | undefined> = {};
  let json = false;
  for (; i < argv.length; i++) {
    const token = argv[i];
    if (!token.startsWith('--')) throw new CliError(`unexpected argument "${token}"`, 2);
    const [rawName, inline] = token.slice(2).split(/=(.*)/s, 2);
    if (rawName === 'json') {
      json = true;
      continue;
    }
    const spec = command.flags[rawName];
    if (!spec)
      throw new CliError(
        `unknown flag --${rawName} for "${command.name}"; it takes ${
          Object.keys(command.flags)
            .map((f) => `--${f}`)
            .join(', ') || 'no flags'
        }`,
        2,
      );
    if (spec.type === 'boolean') {
      flags[rawName] = inline === undefined ? true : inline === 'true';
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined || (inline === undefined && value.startsWith('--') && value !== '-'))
      throw new CliError(`--${rawName} needs a value`, 2);
    flags[rawName] = value;
  }
  for (const [flag, spec] of Object.entries(command.flags)) {
    if (spec.required && (flags[flag] === undefined || flags[flag] === ''))
      throw new CliError(`--${flag} is required for "${command.name}"`, 2);
  }
  return { command, flags, json };
}
