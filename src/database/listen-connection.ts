import type { Logger } from '@nestjs/common';
import pg from 'pg';
import { runInBackground } from '../common/background.js';

/** What one LISTEN connection is for: its channel, how it names itself, and what it does with what it hears. */
export interface ListenOptions {
  databaseUrl: string;
  channel: string;
  /** `application_name` of the connection, as pg_stat_activity shows it. */
  applicationName: string;
  /** What is listened for, in log lines ("webhook deliveries"). */
  what: string;
  /** What still works while the connection is down, in the log line of a failed attempt. */
  whileDown: string;
  /** The longest wait between reconnect attempts; the first is 0.5 s, doubling. */
  maxRetryMs: number;
  notified(payload: string): void;
  /** Listening (again): what was committed meanwhile may have been missed. */
  listening(): void;
  /**
   * A failed (re)connect: true when it means the database is unreachable and that outage is logged elsewhere
   * (once, however many attempts fail), so this says nothing; false, and the attempt is logged here.
   */
  outage(err: unknown): boolean;
  /** How often the connection must show it still answers, and how long it gets; the defaults below (tests shorten them). */
  heartbeat?: Heartbeat;
}

export interface Heartbeat {
  everyMs: number;
  timeoutMs: number;
}

/**
 * A LISTEN connection only receives: one whose server went away without a word (a host lost in a failover, a
 * dropped NAT entry, a frozen server) hears nothing for ever, and waiting requests would each wait out their whole
 * wait. So 10 s after each answer it runs `SELECT 1`, and an answer not back within 5 s (or a connect not made
 * within 5 s) counts as the connection lost. A busy server answers `SELECT 1` in milliseconds.
 */
export const LISTEN_HEARTBEAT: Heartbeat = { everyMs: 10_000, timeoutMs: 5_000 };

const FIRST_RETRY_MS = 500;

/**
 * LISTEN on one dedicated connection, outside the pool (a LISTEN holds its
 * session for as long as it listens); on loss, reconnect with backoff and say
 * so through `listening` once it is back, so callers catch up.
 */
export class ListenConnection {
  private client: pg.Client | null = null;
  private readonly dropped = new WeakSet<pg.Client>();
  private reconnectTimer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private delayMs = FIRST_RETRY_MS;
  private running = false;

  constructor(
    private readonly options: ListenOptions,
    private readonly logger: Logger,
  ) {}

  /** True while the LISTEN is in place: a commit then reaches `notified`. */
  get listening(): boolean {
    return this.client !== null;
  }

  /** Connects outside the caller's async context: the first waiting request starts it, and it outlives that request. */
  start(): void {
    if (this.running) return;
    this.running = true;
    runInBackground(() => void this.connect());
  }

  stop(): void {
    this.running = false;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    if (this.client) this.drop(this.client);
  }

  private async connect(): Promise<void> {
    if (!this.running) return;
    const { databaseUrl, channel, applicationName, what, whileDown } = this.options;
    const heartbeat = this.options.heartbeat ?? LISTEN_HEARTBEAT;
    const client = new pg.Client({
      connectionString: databaseUrl,
      application_name: applicationName,
      connectionTimeoutMillis: heartbeat.timeoutMs,
      query_timeout: heartbeat.timeoutMs,
    });
    client.on('notification', (n) => this.options.notified(n.payload ?? ''));
    client.on('error', (err) => {
      // Not a warning by itself: the reconnect that follows either works (and waiters re-check) or says why it failed.
      this.logger.log({ err }, `${what} LISTEN connection lost; reconnecting`);
      this.drop(client);
    });
    client.on('end', () => this.drop(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
      if (!this.running) return this.drop(client);
      this.client = client;
      this.delayMs = FIRST_RETRY_MS;
      this.nextBeat(client, heartbeat);
      this.options.listening();
    } catch (err) {
      if (!this.options.outage(err)) this.logger.warn({ err }, `could not LISTEN for ${what}; retrying (${whileDown})`);
      this.drop(client);
    }
  }

  /** `SELECT 1` after `everyMs`, and again once answered (never two at once); unanswered in time, the connection is dropped. */
  private nextBeat(client: pg.Client, heartbeat: Heartbeat): void {
    this.heartbeatTimer = setTimeout(() => {
      client.query('SELECT 1').then(
        () => {
          if (this.client === client) this.nextBeat(client, heartbeat);
        },
        (err: unknown) => {
          if (this.client !== client) return;
          this.logger.log({ err }, `${this.options.what} LISTEN connection did not answer; reconnecting`);
          this.drop(client);
        },
      );
    }, heartbeat.everyMs);
    this.heartbeatTimer.unref();
  }

  private drop(client: pg.Client): void {
    if (this.dropped.has(client)) return;
    this.dropped.add(client);
    if (this.client === client) {
      this.client = null;
      if (this.heartbeatTimer) clearTimeout(this.heartbeatTimer);
      this.heartbeatTimer = null;
    }
    client.removeAllListeners('notification');
    client.end().catch((err: unknown) => this.logger.debug({ err }, `closing the ${this.options.what} LISTEN connection failed`));
    if (this.running && !this.reconnectTimer) {
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = null;
        void this.connect();
      }, this.delayMs);
      this.delayMs = Math.min(this.delayMs * 2, this.options.maxRetryMs);
    }
  }
}
