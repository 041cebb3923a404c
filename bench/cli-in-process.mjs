import { NestFactory } from '@nestjs/core';

const dist = (path) => import(new URL(`../dist/src/${path}`, import.meta.url).href);

/**
 * The CLI's own commands (the dashboard's stand-in), run in this process on one application context: each argv is
 * parsed and run exactly as `npm run cli -- <argv> --json` would, without booting a process per command (each one
 * loads the service's modules again: about 3 s of CPU, and fourteen of them took a quarter of a short chaos run).
 * `env` is the environment a CLI process would get (DATABASE_URL, WEBHOOK_SECRET_KEY, ...).
 */
export async function openCli(env) {
  const [{ CliModule }, { COMMANDS }, { parseArgs }, { loadConfig }, { StderrLogger }] = await Promise.all([
    dist('cli/cli.module.js'),
    dist('cli/commands/index.js'),
    dist('cli/parse-args.js'),
    dist('config/app-config.js'),
    dist('cli/stderr-logger.js'),
  ]);
  const config = loadConfig({ ...env, LOG_LEVEL: 'warn' });
  const app = await NestFactory.createApplicationContext(CliModule.forRoot({ config, databaseUrl: config.databaseUrl }), {
    // Warnings on stderr, as the CLI's: a bench's stdout is its result.
    logger: new StderrLogger({ logLevels: ['error', 'warn'] }),
    abortOnError: false,
  });
  return {
    /** `input`: what the command reads for `--file -` (its stdin). */
    run: (argv, input = '') => {
      const { command, flags } = parseArgs([...argv, '--json'], COMMANDS);
      return command.run({ app, flags, readInput: async () => input });
    },
    close: () => app.close(),
  };
}
