import './compile-cache.js';
import 'reflect-metadata';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type pino from 'pino';
import { ROOT_LOGGER } from './common/logging/logger.module.js';
import { type AppConfig, ConfigError, loadConfig } from './config/app-config.js';
import { createApp } from './create-app.js';
import { prepareDatabase, type PreparedDatabase } from './database/prepare-database.js';
import { DemoService } from './demo/index.js';

// stdout carries only JSON lines (pino); the human banner, and the demo key shown once, go to stderr.
const say = (line: string) => process.stderr.write(line + '\n');
const warn = (line: string) => process.stderr.write(line + '\n');

/** What start-up has made so far, for a shutdown to close. */
interface Running {
  db?: PreparedDatabase;
  app?: NestFastifyApplication;
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      warn(`configuration error: ${e.message}`);
      process.exit(1);
    }
    throw e;
  }
  const running: Running = {};
  let stopping = false;
  // One owner of SIGTERM and SIGINT, from before the database starts (its package's own hook is turned off): start-up
  // settles, the app closes (stops claiming deliveries, drains what is in flight), then the embedded database this
  // process started stops, and the process exits 0. A repeated signal changes nothing (Ctrl-C reaches npm and the
  // start script, which each pass it on). A failed close is said once on stderr, and the database stopped all the same.
  let starting: Promise<void> = Promise.resolve();
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await starting.catch(() => undefined);
    let code = 0;
    try {
      await running.app?.close();
    } catch (err) {
      warn(`shutdown failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      code = 1;
    }
    await running.db?.stop().catch(() => undefined);
    process.exit(code);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void shutdown());
  starting = start(config, running, () => stopping);
  try {
    await starting;
  } catch (err) {
    await running.app?.close().catch(() => undefined);
    await running.db?.stop().catch(() => undefined);
    throw err;
  }
}

/** Database, migrations, app, demo firm, listen; each step skipped once a shutdown has begun. */
async function start(config: AppConfig, running: Running, stopping: () => boolean): Promise<void> {
  if (config.webhookAllowPrivateTargets) {
    warn('WARNING: WEBHOOK_ALLOW_PRIVATE_TARGETS=true lets webhooks reach http and private addresses. For development and tests only.');
  }
  const db = await prepareDatabase(config, (line) => (config.logsDebug ? warn(line.trimEnd()) : undefined), { stopsOnSignals: true });
  running.db = db;
  if (stopping()) return;
  const app = await createApp({ config, databaseUrl: db.url });
  running.app = app;
  // Initialised before anything is written: modules register what every write relies on in onModuleInit (the
  // recorder of lead events, webhook fan-out), and listen() does not initialise twice.
  await app.init();
  // First start on the embedded database: a demo firm to explore right away.
  let demoKey: string | null = null;
  if (db.embedded && config.runsApi) {
    const demo = app.get(DemoService);
    if (!(await demo.hasAnyFirm())) demoKey = (await demo.seed()).keys['read-update-leads'];
  }
  if (stopping()) return;
  if (config.runsApi) await app.listen({ port: config.port, host: config.host });
  app
    .get<pino.Logger>(ROOT_LOGGER)
    .info(
      { role: config.role, base_url: config.baseUrl, database: db.embedded ? 'embedded' : 'DATABASE_URL', demo_firm_created: !!demoKey },
      'service started',
    );
  printBanner(config, db.embedded, demoKey);
}

/** For a person at a terminal, on stderr; the demo key is shown only here, never in a log line. */
function printBanner(config: AppConfig, embedded: boolean, demoKey: string | null): void {
  say('');
  say(`Receptionist API (${config.role}) on ${config.baseUrl}`);
  say(`  Swagger UI:  ${config.baseUrl}/docs`);
  say(`  OpenAPI:     ${config.baseUrl}/v1/openapi.json`);
  say(`  Database:    ${embedded ? `embedded PostgreSQL in ${config.dataDir}/pg` : 'DATABASE_URL'}`);
  if (demoKey) {
    say('');
    say('  Demo firm created. Its API key (permission set "Read and update leads") is shown only now:');
    say(`    ${demoKey}`);
    say(`  Try: curl -H "Authorization: Bearer ${demoKey}" ${config.baseUrl}/v1/account`);
  }
  say('');
}

main().catch((err) => {
  warn(`failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
