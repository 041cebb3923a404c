import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { configuredSecrets } from './configured-secrets.js';
import { recordingStoreConfig, type RecordingStoreConfig } from './recording-store-config.js';
import { loadTracingConfig, type TracingConfig } from './tracing-config.js';

export type Role = 'all' | 'api' | 'worker';
const ROLES: Role[] = ['all', 'api', 'worker'];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Thrown at boot for a bad environment; the message names the variable. */
export class ConfigError extends Error {}

const failConfig = (message: string): never => {
  throw new ConfigError(message);
};

/**
 * The validated environment. Built once at boot by `loadConfig` and provided to
 * every module as a plain value, so nothing reads `process.env` later.
 */
export class AppConfig {
  port: number;
  host: string;
  databaseUrl: string | null;
  dataDir: string;
  embeddedPgPort: number;
  baseUrl: string;
  /** BASE_URL was set: links and the OpenAPI server use it; otherwise the document's server is relative. */
  baseUrlGiven: boolean;
  dashboardUrl: string | null;
  logLevel: string;
  role: Role;
  internalApiToken: string | null;
  /** 32-byte key for AES-256-GCM encryption of webhook signing secrets at rest. */
  webhookSecretKey: Buffer;
  webhookAllowPrivateTargets: boolean;
  /**
   * EVENTS_WAIT_FOR_STANDBY: list and send an event only once a streaming standby has flushed its commit, so a promotion
   * never takes back what a reader or receiver was given (docs/operations.md).
   */
  eventsWaitForStandby: boolean;
  /** Waits between attempts, in ms; its length + 1 is the attempt budget. */
  webhookRetryScheduleMs: number[];
  webhookDispatchConcurrency: number;
  /** How long a claimed delivery stays leased to one worker (longer than the 10 s send timeout). */
  webhookLeaseMs: number;
  smtpUrl: string | null;
  mailFrom: string;
  /** How far before the database clock list `as_of` is set (spec: half a minute). */
  listAsOfMarginMs: number;
  /** How long a connection may send nothing mid-request before it is closed (HTTP_IDLE_TIMEOUT_MS). */
  httpIdleTimeoutMs: number;
  /** How long a whole request (headers and body) may take to arrive, the recording upload excepted (HTTP_REQUEST_TIMEOUT_MS). */
  httpRequestTimeoutMs: number;
  /** Largest recording the internal upload accepts, in bytes (RECORDING_MAX_BYTES). */
  recordingMaxBytes: number;
  /** RECORDING_STORE and the S3_* settings. */
  recordingStore: RecordingStoreConfig;
  /** How old a stored object with no recording row must be before the sweep deletes it (RECORDING_SWEEP_GRACE). */
  recordingSweepGraceMs: number;
  /** How long audit rows are kept (AUDIT_RETENTION); null: for ever. */
  auditRetentionMs: number | null;
  /** Longest one SQL statement may take (DATABASE_STATEMENT_TIMEOUT): bounds a request on a stalled database. */
  databaseStatementTimeoutMs: number;
  /** General per-key limit: requests per second (RATE_LIMIT_PER_SECOND) and bucket size (RATE_LIMIT_BURST). */
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  /** Requests one key may have under way at once in a process (CONCURRENT_REQUESTS_PER_KEY); more wait in a short queue, then 429. */
  concurrentRequestsPerKey: number;
  /** Bearer token of GET /metrics (METRICS_TOKEN); unset, the endpoint is open. */
  metricsToken: string | null;
  /** A port on which the process also serves GET /metrics alone (METRICS_PORT): how a ROLE=worker process is scraped. */
  metricsPort: number | null;
  /** Span export (OTEL_EXPORTER_OTLP_ENDPOINT and the other standard variables); null: tracing is off. */
  tracing: TracingConfig | null;
  /** The value of every secret above and of the S3 credentials (configured-secrets.ts): never written to a log line. */
  secretValues: readonly string[] = [];
  /** Start PostgreSQL-free work (demo seed) only when we own the database. */
  get embedded(): boolean {
    return this.databaseUrl === null;
  }
  get runsApi(): boolean {
    return this.role === 'all' || this.role === 'api';
  }
  get runsWorker(): boolean {
    return this.role === 'all' || this.role === 'worker';
  }
  /** LOG_LEVEL debug or trace: debug lines are written (work that only feeds them is skipped otherwise). */
  get logsDebug(): boolean {
    return this.logLevel === 'debug' || this.logLevel === 'trace';
  }
}

/** 256 MiB: about 24 hours of 24 kbit/s Opus, far beyond any phone call. */
export const DEFAULT_RECORDING_MAX_BYTES = 256 * 1024 * 1024;

export const DEFAULT_RETRY_SCHEDULE = '1m,5m,30m,2h,6h,12h,24h';
/** A delivery's attempts with the default schedule: the first and one after each wait (8); the document states it. */
/** How long a receiver has to answer a delivery (whole answer) before the attempt counts as failed; the document states it. */
export const WEBHOOK_SEND_TIMEOUT_MS = 10_000;
export const DEFAULT_DELIVERY_ATTEMPTS = DEFAULT_RETRY_SCHEDULE.split(',').length + 1;

/** The general per-key limit when RATE_LIMIT_PER_SECOND is unset (the burst defaults to twice it); the OpenAPI document states it. */
export const DEFAULT_RATE_LIMIT_PER_SECOND = 100;
export const defaultRateLimitBurst = (perSecond: number) => 2 * perSecond;
/** A key's requests under way at once in each api process when CONCURRENT_REQUESTS_PER_KEY is unset; the document states it. */
export const DEFAULT_CONCURRENT_REQUESTS_PER_KEY = 2;
/** How long a request over that cap may wait in line for one of its key's requests to finish before it is answered 429. */
export const CONCURRENCY_QUEUE_WAIT_MS = 2_000;

/** The per-key limits: the rate (a token bucket) and the requests under way at once. */
function keyLimits(c: AppConfig, env: NodeJS.ProcessEnv): void {
  c.rateLimitPerSecond = int(env, 'RATE_LIMIT_PER_SECOND', DEFAULT_RATE_LIMIT_PER_SECOND, 1, 1_000_000);
  c.rateLimitBurst = int(env, 'RATE_LIMIT_BURST', defaultRateLimitBurst(c.rateLimitPerSecond), 1, 10_000_000);
  c.concurrentRequestsPerKey = int(env, 'CONCURRENT_REQUESTS_PER_KEY', DEFAULT_CONCURRENT_REQUESTS_PER_KEY, 1, 10_000);
}

export function parseDuration(text: string): number | null {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!m) return null;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'ms' | 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}

function int(env: NodeJS.ProcessEnv, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function bool(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  if (raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function url(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  try {
    const u = new URL(raw);
    if (!protocols.includes(u.protocol)) throw new Error();
    return raw;
  } catch {
    throw new ConfigError(`${name} must be a ${protocols.join(' or ')} URL`);
  }
}

function secretKey(env: NodeJS.ProcessEnv, dataDir: string, embedded: boolean): Buffer {
  const raw = env.WEBHOOK_SECRET_KEY;
  const decode = (text: string, source: string): Buffer => {
    const t = text.trim();
    const buf = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
    if (buf.length !== 32) throw new ConfigError(`${source} must be 32 bytes, as 64 hex characters or base64`);
    return buf;
  };
  if (raw) return decode(raw, 'WEBHOOK_SECRET_KEY');
  if (!embedded) throw new ConfigError('WEBHOOK_SECRET_KEY is required when DATABASE_URL is set');
  // Embedded mode: generate once and keep it beside the data it protects.
  const file = join(dataDir, 'webhook-secret.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return decode(readFileSync(file, 'utf8'), file);
}

/** AUDIT_RETENTION: unset or `unlimited` keeps the audit log for ever; otherwise whole days, at least one. */
function auditRetention(raw: string | undefined): number | null {
  if (raw === undefined || raw.trim() === '' || raw.trim() === 'unlimited') return null;
  const ms = parseDuration(raw);
  if (ms === null || ms < 86_400_000 || ms % 86_400_000 !== 0) {
    throw new ConfigError(`AUDIT_RETENTION must be a number of days such as 90d, or unlimited, got "${raw}"`);
  }
  return ms;
}

function webhookLease(env: NodeJS.ProcessEnv): number {
  const lease = parseDuration(env.WEBHOOK_LEASE || '60s');
  if (lease === null || lease < 15_000 || lease > 3_600_000) {
    throw new ConfigError(
      `WEBHOOK_LEASE must be a duration from 15s to 1h (it must outlast the 10 s send timeout), got "${env.WEBHOOK_LEASE}"`,
    );
  }
  return lease;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const c = new AppConfig();
  c.port = int(env, 'PORT', 3000, 0, 65535);
  c.host = env.HOST || '0.0.0.0';
  c.databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  c.dataDir = resolve(env.DATA_DIR || './.data');
  c.embeddedPgPort = int(env, 'EMBEDDED_PG_PORT', 54329, 1024, 65535);
  c.baseUrlGiven = url(env, 'BASE_URL', ['http:', 'https:']) !== null;
  c.baseUrl = (url(env, 'BASE_URL', ['http:', 'https:']) ?? `http://localhost:${c.port}`).replace(/\/+$/, '');
  c.dashboardUrl = url(env, 'DASHBOARD_URL', ['http:', 'https:'])?.replace(/\/+$/, '') ?? null;
  c.logLevel = (env.LOG_LEVEL || 'info').toLowerCase();
  if (!LOG_LEVELS.includes(c.logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const role = (env.ROLE || 'all').toLowerCase();
  if (!ROLES.includes(role as Role)) throw new ConfigError(`ROLE must be one of ${ROLES.join(', ')}, got "${env.ROLE}"`);
  c.role = role as Role;
  c.internalApiToken = env.INTERNAL_API_TOKEN || null;
  if (c.internalApiToken !== null && c.internalApiToken.length < 16) {
    throw new ConfigError('INTERNAL_API_TOKEN must be at least 16 characters');
  }
  c.webhookSecretKey = secretKey(env, c.dataDir, c.databaseUrl === null);
  c.webhookAllowPrivateTargets = bool(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS');
  c.eventsWaitForStandby = bool(env, 'EVENTS_WAIT_FOR_STANDBY');
  const schedule = (env.WEBHOOK_RETRY_SCHEDULE || DEFAULT_RETRY_SCHEDULE).split(',');
  c.webhookRetryScheduleMs = schedule.map((part) => {
    const ms = parseDuration(part);
    if (ms === null) throw new ConfigError(`WEBHOOK_RETRY_SCHEDULE: "${part}" is not a duration such as 30s, 5m or 2h`);
    return ms;
  });
  c.webhookDispatchConcurrency = int(env, 'WEBHOOK_DISPATCH_CONCURRENCY', 64, 1, 1000);
  c.webhookLeaseMs = webhookLease(env);
  c.smtpUrl = url(env, 'SMTP_URL', ['smtp:', 'smtps:']);
  c.mailFrom = env.MAIL_FROM || 'Receptionist API <no-reply@localhost>';
  c.listAsOfMarginMs = int(env, 'LIST_AS_OF_MARGIN_MS', 30_000, 0, 3_600_000);
  c.httpIdleTimeoutMs = int(env, 'HTTP_IDLE_TIMEOUT_MS', 60_000, 500, 3_600_000);
  c.httpRequestTimeoutMs = int(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 1000, 3_600_000);
  c.recordingMaxBytes = int(env, 'RECORDING_MAX_BYTES', DEFAULT_RECORDING_MAX_BYTES, 1024, 10 * 1024 ** 3);
  c.recordingStore = recordingStoreConfig(env, failConfig);
  const grace = parseDuration(env.RECORDING_SWEEP_GRACE || '1h');
  if (grace === null || grace < 60_000 || grace > 30 * 86_400_000) {
    throw new ConfigError(`RECORDING_SWEEP_GRACE must be a duration from 1m to 30d, got "${env.RECORDING_SWEEP_GRACE}"`);
  }
  c.recordingSweepGraceMs = grace;
  const statementTimeout = parseDuration(env.DATABASE_STATEMENT_TIMEOUT || '10s');
  if (statementTimeout === null || statementTimeout < 500 || statementTimeout > 600_000) {
    throw new ConfigError(`DATABASE_STATEMENT_TIMEOUT must be a duration from 500ms to 10m, got "${env.DATABASE_STATEMENT_TIMEOUT}"`);
  }
  c.databaseStatementTimeoutMs = statementTimeout;
  c.auditRetentionMs = auditRetention(env.AUDIT_RETENTION);
  keyLimits(c, env);
  c.metricsToken = env.METRICS_TOKEN || null;
  c.metricsPort = env.METRICS_PORT ? int(env, 'METRICS_PORT', 0, 1, 65535) : null;
  c.tracing = loadTracingConfig(env, failConfig);
  return Object.assign(c, { secretValues: configuredSecrets({ ...c, env }) });
}
