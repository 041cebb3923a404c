import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, parseDuration } from './app-config';

const KEY = Buffer.alloc(32, 1).toString('base64');
const base = { DATABASE_URL: 'postgres://u:p@db:5432/x', WEBHOOK_SECRET_KEY: KEY };

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig(base);
    expect(c).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      role: 'all',
      logLevel: 'info',
      baseUrl: 'http://localhost:3000',
      baseUrlGiven: false,
      internalApiToken: null,
      webhookAllowPrivateTargets: false,
      dashboardUrl: null,
      httpIdleTimeoutMs: 60_000,
      httpRequestTimeoutMs: 30_000,
    });
    expect(c.webhookRetryScheduleMs).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000]);
    expect(c.webhookSecretKey).toEqual(Buffer.alloc(32, 1));
  });

  it.each([
    [{ PORT: 'abc' }, /PORT must be an integer/],
    [{ ROLE: 'admin' }, /ROLE must be one of all, api, worker/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    [{ BASE_URL: 'ftp://x' }, /BASE_URL must be a http: or https: URL/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must be a postgres: or postgresql: URL/],
    [{ WEBHOOK_SECRET_KEY: 'short' }, /WEBHOOK_SECRET_KEY must be 32 bytes/],
    [{ WEBHOOK_SECRET_KEY: '' }, /WEBHOOK_SECRET_KEY is required when DATABASE_URL is set/],
    [{ WEBHOOK_RETRY_SCHEDULE: '1m,soon' }, /WEBHOOK_RETRY_SCHEDULE: "soon" is not a duration/],
    [{ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' }, /WEBHOOK_ALLOW_PRIVATE_TARGETS must be true or false/],
    [{ INTERNAL_API_TOKEN: 'tiny' }, /INTERNAL_API_TOKEN must be at least 16 characters/],
    [{ DATABASE_STATEMENT_TIMEOUT: '100ms' }, /DATABASE_STATEMENT_TIMEOUT must be a duration from 500ms to 10m/],
    [{ DATABASE_STATEMENT_TIMEOUT: 'forever' }, /DATABASE_STATEMENT_TIMEOUT must be a duration/],
    [{ RECORDING_STORE: 'ftp' }, /RECORDING_STORE must be fs or s3/],
    [{ RECORDING_STORE: 's3' }, /S3_BUCKET is required when RECORDING_STORE=s3/],
    [{ RECORDING_STORE: 's3', S3_BUCKET: 'b', S3_ENDPOINT: 'minio:9000' }, /S3_ENDPOINT must be an http or https URL/],
    [{ RECORDING_STORE: 's3', S3_BUCKET: 'b', S3_FORCE_PATH_STYLE: 'yes' }, /S3_FORCE_PATH_STYLE must be true or false/],
    [{ RECORDING_SWEEP_GRACE: '5s' }, /RECORDING_SWEEP_GRACE must be a duration from 1m to 30d/],
    [{ AUDIT_RETENTION: '90' }, /AUDIT_RETENTION must be a number of days such as 90d, or unlimited, got "90"/],
    [{ AUDIT_RETENTION: '12h' }, /AUDIT_RETENTION must be a number of days/],
    [{ AUDIT_RETENTION: 'forever' }, /AUDIT_RETENTION must be a number of days/],
    [{ HTTP_REQUEST_TIMEOUT_MS: '999' }, /HTTP_REQUEST_TIMEOUT_MS must be an integer from 1000 to 3600000/],
    [{ HTTP_REQUEST_TIMEOUT_MS: '30s' }, /HTTP_REQUEST_TIMEOUT_MS must be an integer/],
  ])('refuses %j with a message naming the variable', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });

  it('keeps the audit log for ever unless AUDIT_RETENTION names a number of days', () => {
    expect(loadConfig(base).auditRetentionMs).toBeNull();
    expect(loadConfig({ ...base, AUDIT_RETENTION: 'unlimited' }).auditRetentionMs).toBeNull();
    expect(loadConfig({ ...base, AUDIT_RETENTION: '90d' }).auditRetentionMs).toBe(90 * 86_400_000);
  });

  it('keeps recordings on the filesystem unless RECORDING_STORE=s3 names a bucket', () => {
    expect(loadConfig(base).recordingStore).toEqual({ kind: 'fs' });
    expect(loadConfig(base).recordingSweepGraceMs).toBe(3_600_000);
    const env = { RECORDING_STORE: 'S3', S3_BUCKET: 'recordings', S3_ENDPOINT: 'http://minio:9000', S3_FORCE_PATH_STYLE: 'true' };
    expect(loadConfig({ ...base, ...env }).recordingStore).toEqual({
      kind: 's3',
      bucket: 'recordings',
      endpoint: 'http://minio:9000',
      region: 'us-east-1',
      forcePathStyle: true,
    });
  });

  it('generates the at-rest key once into DATA_DIR when embedded', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const first = loadConfig({ DATA_DIR: dir });
    const second = loadConfig({ DATA_DIR: dir });
    expect(first.embedded).toBe(true);
    expect(first.webhookSecretKey).toHaveLength(32);
    expect(second.webhookSecretKey).toEqual(first.webhookSecretKey);
    expect(Buffer.from(readFileSync(join(dir, 'webhook-secret.key'), 'utf8'), 'base64')).toEqual(first.webhookSecretKey);
  });

  it('bounds each SQL statement: 10 s unless DATABASE_STATEMENT_TIMEOUT says otherwise', () => {
    expect(loadConfig(base).databaseStatementTimeoutMs).toBe(10_000);
    expect(loadConfig({ ...base, DATABASE_STATEMENT_TIMEOUT: '2s' }).databaseStatementTimeoutMs).toBe(2000);
  });

  it('derives BASE_URL from PORT and trims a trailing slash', () => {
    expect(loadConfig({ ...base, PORT: '8080' }).baseUrl).toBe('http://localhost:8080');
    expect(loadConfig({ ...base, BASE_URL: 'https://api.example.com/' }).baseUrl).toBe('https://api.example.com');
  });

  it('reads the retry schedule: the default is 1m,5m,30m,2h,6h,12h,24h (8 attempts), any units can shorten it', () => {
    expect(loadConfig(base).webhookRetryScheduleMs).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000]);
    expect(loadConfig({ ...base, WEBHOOK_RETRY_SCHEDULE: '250ms, 2s,1m' }).webhookRetryScheduleMs).toEqual([250, 2000, 60_000]);
    expect([parseDuration('1d'), parseDuration('15s'), parseDuration('1.5h'), parseDuration('5'), parseDuration('-1s')]).toEqual([
      86_400_000,
      15_000,
      null,
      null,
      null,
    ]);
  });
});
