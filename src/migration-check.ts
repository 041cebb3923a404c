import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { CliModule } from './cli/cli.module.js';
import { loadConfig } from './config/app-config.js';
import { startEmbeddedPostgres } from './database/embedded-postgres.js';
import { runMigrations } from './database/migrate.js';
import { describeDrift, schemaDrift } from './database/schema-drift.js';

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

/** DATABASE_URL, or an embedded PostgreSQL in a folder of its own, removed afterwards. */
async function database(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'migration-check-'));
  const db = await startEmbeddedPostgres({ dataDir: dir, port: await freePort() });
  return {
    url: db.url,
    stop: async () => {
      await db.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `npm run migration:check`: runs the migrations, then compares the entities the contexts register with the
 * migrated schema; exits 1 naming every difference.
 */
async function main(): Promise<number> {
  const db = await database();
  try {
    await runMigrations(db.url);
    const config = loadConfig({
      ...process.env,
      DATABASE_URL: db.url,
      // The check seals no secret; the service's key, when set, is used as given.
      WEBHOOK_SECRET_KEY: process.env.WEBHOOK_SECRET_KEY || randomBytes(32).toString('base64'),
      LOG_LEVEL: 'error',
    });
    const app = await NestFactory.createApplicationContext(CliModule.forRoot({ config, databaseUrl: db.url }), {
      logger: ['error'],
    });
    try {
      const differences = describeDrift(await schemaDrift(app.get(DataSource)));
      if (differences.length === 0) {
        process.stdout.write('entities and migrations agree\n');
        return 0;
      }
      process.stdout.write(`entities and migrations disagree: ${differences.length} difference(s)\n`);
      for (const d of differences) process.stdout.write(`  ${d}\n`);
      return 1;
    } finally {
      await app.close();
    }
  } finally {
    await db.stop();
  }
}

void main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(2);
  },
);
