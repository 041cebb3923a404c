import type { Logger } from '@nestjs/common';
import pg from 'pg';

/** The channel EventsRepository.insert notifies on, with `org_id:type` as payload; sent only when the transaction commits. */
export const EVENTS_CHANNEL = 'events';

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 5_000;

/**
 * LISTEN for committed events on one dedicated connection (outside the pool),
 * handing each payload to `notified`; on loss, reconnect with backoff (0.5 s
 * to 5 s) and call `connected` once listening again, so waiters re-check what
 * they may have missed.
 */
export class EventsListener {
  private client: pg.Client | null = null;
  private readonly dropped = new WeakSet<pg.Client>();
  private reconnectTimer: NodeJS.Timeout | null = null;
  private delayMs = FIRST_RETRY_MS;
  private running = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly handlers: { notified: (payload: string) => void; connected: () => void },
    private readonly logger: Logger,
  ) {}

  /** True while the LISTEN is in place: a commit then reaches `notified`. */
  get listening(): boolean {
    return this.client !== null;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.connect();
  }

  stop(): void {
    this.running = false;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    if (this.client) this.drop(this.client);
  }

  private async connect(): Promise<void> {
    if (!this.running) return;
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: 'events-listener' });
    client.on('notification', (n) => this.handlers.notified(n.payload ?? ''));
    client.on('error', (err) => {
      this.logger.warn({ err }, 'events LISTEN connection failed; reconnecting');
      this.drop(client);
    });
    client.on('end', () => this.drop(client));
    try {
      await client.connect();
      // A dedicated connection that only listens: outside the pool and the repositories' Queryable by design.
      // eslint-disable-next-line no-restricted-syntax
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
      if (!this.running) return this.drop(client);
      this.client = client;
      this.delayMs = FIRST_RETRY_MS;
      this.handlers.connected();
    } catch (err) {
      this.logger.warn({ err }, 'could not LISTEN for events; retrying (waiting requests re-check each second meanwhile)');
      this.drop(client);
    }
  }

  private drop(client: pg.Client): void {
    if (this.dropped.has(client)) return;
    this.dropped.add(client);
    if (this.client === client) this.client = null;
    client.removeAllListeners('notification');
    client.end().catch((err: unknown) => this.logger.debug({ err }, 'closing the events LISTEN connection failed'));
    if (this.running && !this.reconnectTimer) {
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = null;
        void this.connect();
      }, this.delayMs);
      this.delayMs = Math.min(this.delayMs * 2, LAST_RETRY_MS);
    }
  }
}
