import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { AdjustableClock } from '../../src/common/clock';
import { loadConfig, type AppConfig } from '../../src/config/app-config';
import { createApp } from '../../src/create-app';
import { checkResponse, forgetServed, servedConformance, type Conformance } from './conformance';
import { createTestDatabase } from './database';
import { requestAt, type HttpResult, type RequestOptions } from './http';
import { captureAppLog } from './run-log';
import { TEST_SECRET_KEY } from './secrets';

export { TEST_INTERNAL_TOKEN, TEST_SECRET_KEY } from './secrets';

export type { HttpResult, RequestOptions };

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  clock: AdjustableClock;
  baseUrl: string;
  databaseUrl: string;
  /** A direct connection for assertions about stored rows (never for the code under test). */
  sql(text: string, params?: unknown[]): Promise<any[]>;
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<HttpResult<T>>;
  get<T = any>(path: string, opts?: RequestOptions): Promise<HttpResult<T>>;
  /** The checker built from the document this app serves (for what request() does not see, such as webhook deliveries). */
  conformance(): Promise<Conformance>;
  /** Checks a fetch Response the test made itself (bytes, streams) like request() checks its own; returns it. */
  check(method: string, path: string, response: Response): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The real service, listening on a real port, against its own cloned database.
 * `env` adds environment variables exactly as an operator would set them.
 */
export async function startTestApp(
  opts: {
    env?: Record<string, string>;
    databaseUrl?: string;
    /** Receives every log line of the app. */ logStream?: NodeJS.WritableStream;
  } = {},
): Promise<TestApp> {
  const databaseUrl = opts.databaseUrl ?? (await createTestDatabase());
  // Every app logs into the run's log folder, searched for secrets at the end of the run.
  const log = captureAppLog(opts.logStream);
  // Removed at close unless the test chose its own folder: thousands of apps a run would otherwise fill /tmp.
  const ownDataDir = opts.env?.DATA_DIR === undefined ? mkdtempSync(join(tmpdir(), 'app-data-')) : undefined;
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    WEBHOOK_SECRET_KEY: TEST_SECRET_KEY,
    LOG_LEVEL: log.level,
    PORT: '0',
    // Tests make bursts with one key; test/operators/rate-limit.cases.ts sets a low limit.
    RATE_LIMIT_PER_SECOND: '100000',
    BASE_URL: 'http://api.test',
    // Recordings and generated files never land in the project's own .data.
    ...(ownDataDir === undefined ? {} : { DATA_DIR: ownDataDir }),
    ...opts.env,
  });
  const clock = new AdjustableClock();
  const app = await createApp({ config, databaseUrl, clock, logStream: log.stream });
  // Any free port, unless the test chose one (PORT in env: a test whose BASE_URL must be the app's own address).
  await app.listen({ port: config.port, host: '127.0.0.1' });
  const address = app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  // An idle assertion connection dropped by an outage test must not crash the worker; the next query reconnects.
  pool.on('error', () => undefined);

  // requestAt checks every answer against the document this app serves (test/support/conformance.ts).
  const request = <T>(method: string, path: string, o: RequestOptions = {}) => requestAt<T>(baseUrl, method, path, o);

  return {
    app,
    config,
    clock,
    baseUrl,
    databaseUrl,
    sql: async (text, params) => (await pool.query(text, params as unknown[])).rows,
    request,
    get: (path, o) => request('GET', path, o),
    conformance: () => servedConformance(baseUrl),
    check: (method, path, response) => checkResponse(baseUrl, method, path, response),
    close: async () => {
      await app.close();
      forgetServed(baseUrl);
      await pool.end();
      await log.close();
      if (ownDataDir !== undefined) rmSync(ownDataDir, { recursive: true, force: true });
    },
  };
}
