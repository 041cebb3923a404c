import type { Logger } from '@nestjs/common';
import { ListenConnection } from '../database/listen-connection.js';

/** The channel EventsRepository.insert notifies on, with `org_id:type` as payload; sent only when the transaction commits. */
export const EVENTS_CHANNEL = 'events';

/**
 * LISTEN for committed events, handing each payload to `notified`; on loss,
 * reconnect with backoff (0.5 s to 5 s) and call `connected` once listening
 * again, so waiters re-check what they may have missed.
 */
export class EventsListener extends ListenConnection {
  constructor(databaseUrl: string, handlers: { notified: (payload: string) => void; connected: () => void }, logger: Logger) {
    super(
      {
        databaseUrl,
        channel: EVENTS_CHANNEL,
        applicationName: 'events-listener',
        what: 'events',
        whileDown: 'waiting requests re-check each second meanwhile',
        maxRetryMs: 5_000,
        notified: handlers.notified,
        listening: handlers.connected,
      },
      logger,
    );
  }
}
