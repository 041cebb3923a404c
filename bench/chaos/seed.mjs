import { NestFactory } from '@nestjs/core';

const ALL_TYPES = 'call.completed,lead.created,lead.updated';
const dist = (path) => import(new URL(`../../dist/src/${path}`, import.meta.url).href);

/**
 * The CLI's own commands (the dashboard's stand-in), run in this process on one application context: each argv is
 * parsed and run exactly as `npm run cli -- <argv> --json` would, without booting a process per command (fourteen
 * of them took a quarter of a short run, minutes on a loaded machine). The endpoint toggles during the run still
 * go through CLI processes (fleet.mjs), against PostgreSQL as the faults leave it.
 */
export async function openCli(env) {
  const [{ CliModule }, { COMMANDS }, { parseArgs }, { loadConfig }] = await Promise.all([
    dist('cli/cli.module.js'),
    dist('cli/commands/index.js'),
    dist('cli/parse-args.js'),
    dist('config/app-config.js'),
  ]);
  const config = loadConfig({ ...env, LOG_LEVEL: 'warn' });
  const app = await NestFactory.createApplicationContext(CliModule.forRoot({ config, databaseUrl: config.databaseUrl }), {
    logger: ['error', 'warn'],
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

/**
 * One firm through the CLI's commands: published settings, a read key and two read-update-leads keys (two
 * clients that race on PATCH), and two webhook endpoints on the receivers (one for every type, one for leads only).
 */
export async function seedFirm(n, cli, receivers) {
  const { DEMO_SETTINGS } = await dist('demo/index.js');
  const org = await cli.run(['org', 'create', '--name', `Chaos firm ${n}`, '--slug', `chaos-${n}`]);
  await cli.run(['receptionist', 'publish', '--org', org.id, '--file', '-'], JSON.stringify(DEMO_SETTINGS));
  const key = async (name, set) => {
    const k = await cli.run(['key', 'create', '--org', org.id, '--name', name, '--set', set]);
    return { id: k.id, key: k.key };
  };
  const endpoint = async (suffix, types) => {
    const tag = `f${n}-${suffix}`;
    const e = await cli.run(['endpoint', 'create', '--org', org.id, '--url', receivers.urlFor(tag), '--types', types]);
    receivers.setSecret(tag, e.secret);
    return { id: e.id, tag, types: types.split(',') };
  };
  const reader = await key('reader', 'read');
  const writers = [await key('writer a', 'read-update-leads'), await key('writer b', 'read-update-leads')];
  const endpoints = [await endpoint('all', ALL_TYPES), await endpoint('leads', 'lead.created,lead.updated')];
  return { n, orgId: org.id, reader, writers, endpoints, calls: [], unsure: [], leads: [], recorded: [], uploaded: new Set(), seq: 0 };
}
