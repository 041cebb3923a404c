import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../support/cli';
import { createTestDatabase } from '../support/database';
import { requestAt } from '../support/http';
import { serviceEnv, startService, stopService } from '../support/processes';

/**
 * The packages a process loads only where they are used (docs/decisions.md): undici for a sender's first attempt,
 * nodemailer for a worker with SMTP_URL, OpenTelemetry's SDK with tracing on, the AWS SDK for the S3 store, and
 * @fastify/static and the console's Fastify plugins (cookie, form body, helmet, CSRF) when an HTTP app is built. Each costs a process start about 0.1 to 0.4 s
 * of CPU. A preload lists what a process loaded, as it exits.
 */
const AFTER_BOOT = ['undici', 'nodemailer', '@opentelemetry/sdk-trace-base', '@aws-sdk/client-s3'];
const HTTP_ONLY = ['@fastify/static', '@fastify/cookie', '@fastify/formbody', '@fastify/helmet', '@fastify/csrf-protection'];

describe('what a process loads', () => {
  let db: string;
  const dir = mkdtempSync(join(tmpdir(), 'loaded-packages-'));
  const listing = (name: string) => ({
    file: join(dir, name),
    env: { NODE_OPTIONS: `--require ${resolve('test/support/loaded-packages.cjs')}`, LOADED_PACKAGES_FILE: join(dir, name) },
  });
  const loaded = (file: string) => readFileSync(file, 'utf8').trim().split('\n');

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a CLI command loads none of them', async () => {
    const { file, env } = listing('cli.txt');
    const r = await runCli(['org', 'list', '--json'], { databaseUrl: db, env });
    expect(r.code).toBe(0);
    const names = loaded(file);
    // The list is real: it holds what every process loads.
    expect(names).toEqual(expect.arrayContaining(['typeorm', 'pg', 'class-validator']));
    expect([...AFTER_BOOT, ...HTTP_ONLY].filter((name) => names.includes(name))).toEqual([]);
  });

  it('an api process that served a request loads only the HTTP one', async () => {
    const { file, env } = listing('api.txt');
    const api = await startService('api', serviceEnv(db, env));
    try {
      expect((await requestAt(api.baseUrl!, 'GET', '/v1/health')).status).toBe(200);
    } finally {
      // SIGTERM: the process exits by itself, so the preload writes its list.
      await stopService(api, 'SIGTERM');
    }
    const names = loaded(file);
    expect(names).toEqual(expect.arrayContaining(['typeorm', 'pg', 'fastify', ...HTTP_ONLY]));
    expect(AFTER_BOOT.filter((name) => names.includes(name))).toEqual([]);
  });
});
