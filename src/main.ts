import 'reflect-metadata';
import type pino from 'pino';
import { ROOT_LOGGER } from './common/logging/logger.module.js';
import { type AppConfig, ConfigError, loadConfig } from './config/app-config.js';
import { createApp } from './create-app.js';
import { prepareDatabase } from './database/prepare-database.js';
import { DemoService } from './demo/index.js';

// stdout carries only JSON lines (pino); the human banner, and the demo key shown once, go to stderr.
const say = (line: string) => process.stderr.write(line + '\n');
const warn = (line: string) => process.stderr.write(line + '\n');

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
  if (config.webhookAllowPrivateTargets) {
    warn('WARNING: WEBHOOK_ALLOW_PRIVATE_TARGETS=true lets webhooks reach http and private addresses. For development and tests only.');
  }
  const db = await prepareDatabase(config, (line) =>
    config.logLevel === 'debug' || config.logLevel === 'trace' ? warn(line.trimEnd()) : undefined,
  );
  const app = await createApp({ config, databaseUrl: db.url });
  const stopDatabase = async () => {
    await db.stop().catch(() => undefined);
  };
  // One owner of the signals (not Nest's shutdown hooks as well): close the app, which stops claiming
  // deliveries and drains what is in flight, then the embedded database, then exit 0.
  // A failed close is said once on stderr (it was an unhandled rejection: exit 1 with no word why), and the
  // embedded database is stopped all the same.
  const shutdown = async () => {
    let code = 0;
    try {
      await app.close();
    } catch (err) {
      warn(`shutdown failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      code = 1;
    }
    await stopDatabase();
    process.exit(code);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void shutdown());

  // Initialised before anything is written: modules register what every write relies on in onModuleInit (the
  // recorder of lead events, webhook fan-out), and listen() does not initialise twice.
  await app.init();
  // First start on the embedded database: a demo firm to explore right away.
  let demoKey: string | null = null;
  if (db.embedded && config.runsApi) {
    const demo = app.get(DemoService);
    if (!(await demo.hasAnyFirm())) demoKey = (await demo.seed()).keys['read-update-leads'];
  }
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
