import '../compile-cache.js';
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { readFile } from 'node:fs/promises';
import { loadConfig } from '../config/app-config.js';
import { prepareDatabase } from '../database/prepare-database.js';
import { CliModule } from './cli.module.js';
import { CliError, type CliCommand } from './command.js';
import { cliFailure } from './failures.js';
import { COMMANDS } from './commands/index.js';
import { parseArgs } from './parse-args.js';
import { printable, renderResult, safeJson } from './output.js';
import { StderrLogger } from './stderr-logger.js';

const MIGRATE: CliCommand = {
  name: 'migrate',
  summary: 'Run pending database migrations',
  flags: {},
  run: async () => ({}),
};

function help(): string {
  const lines = ['usage: npm run cli -- <command> [flags] [--json]', ''];
  for (const c of [MIGRATE, ...COMMANDS]) {
    lines.push(`  ${c.name.padEnd(22)} ${c.summary}`);
    for (const [flag, spec] of Object.entries(c.flags))
      lines.push(`      --${flag}${spec.required ? ' (required)' : ''}  ${spec.description}`);
  }
  lines.push('', 'With --json a command prints exactly one JSON object on stdout; logs go to stderr.');
  return lines.join('\n');
}

async function readInput(pathOrDash: string): Promise<string> {
  if (pathOrDash !== '-') {
    try {
      return await readFile(pathOrDash, 'utf8');
    } catch {
      throw new CliError(`cannot read file "${pathOrDash}"`);
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help') {
    process.stdout.write(help() + '\n');
    return 0;
  }
  const wantsJson = argv.includes('--json');
  const fail = (message: string, code: number) => {
    process.stderr.write(`error: ${printable(message)}\n`);
    if (wantsJson) process.stdout.write(safeJson({ error: { message, exit_code: code } }) + '\n');
    return code;
  };
  let stop: () => Promise<void> = async () => undefined;
  try {
    const { command, flags, json } = parseArgs(argv, [MIGRATE, ...COMMANDS]);
    const config = loadConfig();
    const db = await prepareDatabase(config, () => undefined);
    stop = db.stop;
    let result: Record<string, unknown>;
    if (command === MIGRATE) {
      result = { migrations_ran: db.migrationsRan };
    } else {
      const app = await NestFactory.createApplicationContext(CliModule.forRoot({ config, databaseUrl: db.url }), {
        logger: new StderrLogger({ logLevels: ['error', 'warn'] }),
        abortOnError: false,
      });
      try {
        result = await command.run({ app, flags, readInput });
      } finally {
        await app.close();
      }
    }
    // What came from anywhere else (a firm's name, a receiver's answer) shows its control and bidirectional characters escaped.
    process.stdout.write(renderResult(command, result, json) + '\n');
    return 0;
  } catch (err) {
    const failure = cliFailure(err);
    if (failure) return fail(failure.message, failure.exitCode);
    process.stderr.write(`${printable(err instanceof Error ? (err.stack ?? err.message) : String(err))}\n`);
    return fail('unexpected error (details above on stderr)', 1);
  } finally {
    await stop().catch(() => undefined);
  }
}

void main(process.argv.slice(2)).then((code) => process.exit(code));
