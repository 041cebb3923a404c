import type { Logger } from '@nestjs/common';
import type { DatabaseOutage } from '../common/ops/database-outage.js';
import { ListenConnection } from '../database/listen-connection.js';
import { DELIVERY_CHANNEL } from './webhook-deliveries.repository.js';

/**
 * LISTEN for new deliveries, calling `wake` on each notification; on loss,
 * reconnect with backoff (0.5 s to 30 s) and wake once to catch up. The
 * dispatcher's 1 s poll covers the gaps.
 */
export class DeliveryWakeup extends ListenConnection {
  constructor(databaseUrl: string, wake: () => void, outage: DatabaseOutage, logger: Logger) {
    super(
      {
        databaseUrl,
        channel: DELIVERY_CHANNEL,
        applicationName: 'webhook-dispatcher',
        what: 'webhook deliveries',
        whileDown: 'the 1 s poll still runs',
        maxRetryMs: 30_000,
        notified: () => wake(),
        listening: wake,
        outage: (err) => outage.backgroundFailed(err, 'the webhook dispatcher'),
      },
      logger,
    );
  }
}
