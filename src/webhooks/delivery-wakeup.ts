import type { Logger } from '@nestjs/common';
import pg from 'pg';
import { DELIVERY_CHANNEL } from './webhook-deliveries.repository.js';

/**
 * LISTEN for new deliveries on a dedicated connection, calling `wake` on each
 * notification; on loss, reconnect with backoff (0.5 s to 30 s) and wake once
 * to catch up. The dispatcher's 1 s poll covers the gaps.
 */
export class DeliveryWakeup {
  private client: pg.Client | null = null;
  private readonly dropped = new WeakSet<pg.Client>();
  private reconnectTimer: NodeJS.Timeout | null = null;
  private delayMs = 500;
  private running = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly wake: () => void,
    private readonly logger: Logger,
  ) {}

  start(): void {
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
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: 'webhook-dispatcher' });
    client.on('notification', () => this.wake());
    client.on('error', (err) => {
      this.logger.warn({ err }, 'webhook LISTEN connection failed; reconnecting');
      this.drop(client);
    });
    client.on('end', () => this.drop(client));
    try {
      await client.connect();
      // A dedicated connection that only listens: outside the pool and the repositories' Queryable by design.
      // eslint-disable-next-line no-restricted-syntax
      await client.query(`LISTEN ${DELIVERY_CHANNEL}`);
      if (!this.running) return this.drop(client);
      this.client = client;
      this.delayMs = 500;
      this.wake();
    } catch (err) {
      this.logger.warn({ err }, 'could not LISTEN for webhook deliveries; retrying (the 1 s poll still runs)');
      this.drop(client);
    }
  }

  private drop(client: pg.Client): void {
    if (this.dropped.has(client)) return;
    this.dropped.add(client);
    if (this.client === client) this.client = null;
    client.removeAllListeners('notification');
    client.end().catch((err: unknown) => this.logger.debug({ err }, 'closing the LISTEN connection failed'));
    if (this.running && !this.reconnectTimer) {
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = null;
        void this.connect();
      }, this.delayMs);
      this.delayMs = Math.min(this.delayMs * 2, 30_000);
    }
  }
}
