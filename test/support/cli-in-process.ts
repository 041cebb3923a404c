import type { INestApplicationContext } from '@nestjs/common';
import { readFile } from 'node:fs/promises';
import { CliError } from '../../src/cli/command';
import { COMMANDS } from '../../src/cli/commands';
import { cliFailure } from '../../src/cli/failures';
import { printable, renderResult } from '../../src/cli/output';
import { parseArgs } from '../../src/cli/parse-args';

/** A command line's answer, run in this process. */
export interface InProcessCliResult {
  /** The exit code the CLI gives: 0, or the refusal's (2 for usage, 1 for the rest). */
  code: number;
  /** On success, what `--json` prints, parsed back from its JSON text (dates are strings, as an operator sees them). */
  json: any;
  /** On success, what text mode prints (the command's human form, else pretty JSON, escaped), without the final newline. */
  text?: string;
  /** On a refusal, what the CLI prints after `error: ` on stderr, escaped (and as `error.message` with `--json`). */
  message?: string;
}

/**
 * One command line through the CLI's own parser, command table and failure map, in this process, on `app` (the
 * test's app or medium context, whose database the command then uses). This is how a test states a command's
 * rules (its flags' validation, what it changes, its JSON shape) without the ~2 s of CPU a CLI process costs just
 * to load. What only the process does (exiting with the code, stdout holding exactly one JSON object, logs on
 * stderr, reading stdin, starting the database) stays pinned by the real spawns (support/cli.ts) that each CLI test
 * file keeps. An error the CLI would report as "unexpected" is thrown, so the test fails on it.
 */
export async function runCliInProcess(
  app: INestApplicationContext,
  argv: string[],
  opts: { stdin?: string } = {},
): Promise<InProcessCliResult> {
  // As main.ts reads --file: a path, or "-" for standard input.
  const readInput = async (pathOrDash: string) => {
    if (pathOrDash === '-') return opts.stdin ?? '';
    return readFile(pathOrDash, 'utf8').catch(() => {
      throw new CliError(`cannot read file "${pathOrDash}"`);
    });
  };
  try {
    const { command, flags } = parseArgs(argv, COMMANDS);
    const result = await command.run({ app, flags, readInput });
    // As main.ts prints them (control and bidirectional characters escaped), then parsed back.
    return { code: 0, json: JSON.parse(renderResult(command, result, true)), text: renderResult(command, result, false) };
  } catch (err) {
    const failure = cliFailure(err);
    if (!failure) throw err;
    return { code: failure.exitCode, json: undefined, message: printable(failure.message) };
  }
}
