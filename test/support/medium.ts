import type { ModuleMetadata, Type } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ApiKeyService } from '../../src/auth';
import { AdjustableClock } from '../../src/common/clock';
import type { ApiPrincipal } from '../../src/common/http/principal';
import { loadConfig, type AppConfig } from '../../src/config/app-config';
import { coreModules } from '../../src/core-modules';
import { createTestDatabase } from './database';
import { captureAppLog } from './run-log';
import { TEST_SECRET_KEY } from './secrets';

/** One service under test, in the Nest context the CLI uses, on a database of its own, with no HTTP server. */
export interface MediumService<S> {
  /** The service under test. */
  sut: S;
  /** The whole context: its other services (to build data the way the product does). */
  module: TestingModule;
  clock: AdjustableClock;
  config: AppConfig;
  databaseUrl: string;
  /** A direct connection for assertions about stored rows (never for the code under test). */
  sql(text: string, params?: unknown[]): Promise<any[]>;
  /** The principal a request with this key would carry (the key checked by the real ApiKeyService). */
  principal(key: string): Promise<ApiPrincipal>;
  close(): Promise<void>;
}

export interface MediumOptions {
  /** Environment variables, as an operator would set them. */
  env?: Record<string, string>;
  /**
   * Modules beside the CLI's `coreModules` that the service under test lives in (the worker modules, test
   * helpers, the scheduler): still no controller is reached, no HTTP server listens.
   */
  imports?: ModuleMetadata['imports'];
  /** A database the test prepared (a clone of the template); by default a new clone. */
  databaseUrl?: string;
}

/**
 * The medium tier (immich's model, without its mocks: every collaborator is real): `Service` with the real
 * repositories, services and PostgreSQL (a clone of the run's migrated template), composed from the same
 * `coreModules` as the CLI (plus `imports`), so no pipe, guard or HTTP server takes part. One context per test
 * file, shared by its tests; each test isolates its data in a firm of its own.
 */
export async function newMediumService<S>(Service: Type<S>, opts: MediumOptions = {}): Promise<MediumService<S>> {
  const databaseUrl = opts.databaseUrl ?? (await createTestDatabase());
  const log = captureAppLog();
  // Removed at close unless the test chose its own folder (test-app.ts does the same).
  const ownDataDir = opts.env?.DATA_DIR === undefined ? mkdtempSync(join(tmpdir(), 'medium-data-')) : undefined;
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    WEBHOOK_SECRET_KEY: TEST_SECRET_KEY,
    LOG_LEVEL: log.level,
    BASE_URL: 'http://api.test',
    ...(ownDataDir === undefined ? {} : { DATA_DIR: ownDataDir }),
    ...opts.env,
  });
  const clock = new AdjustableClock();
  const module = await Test.createTestingModule({
    imports: [...coreModules({ config, databaseUrl, clock, logStream: log.stream }), ...(opts.imports ?? [])],
  }).compile();
  await module.init();
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  return {
    sut: module.get(Service),
    module,
    clock,
    config,
    databaseUrl,
    sql: async (text, params) => (await pool.query(text, params)).rows,
    principal: (key) => module.get(ApiKeyService).authenticate(`Bearer ${key}`),
    close: async () => {
      await module.close();
      await pool.end();
      await log.close();
      if (ownDataDir !== undefined) rmSync(ownDataDir, { recursive: true, force: true });
    },
  };
}
