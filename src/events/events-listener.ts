import type { Logger } from '@nestjs/common';
import type { DatabaseOutage } from '../common/ops/database-outage.js';
import { ListenConnection } from '../database/listen-connection.js';

/** The channel EventsRepository.insert notifies on, with `<feed>:type` as payload; sent only when the transaction commits. */
export const EVENTS_CHANNEL = 'events';

/** One firm's mode, as the events log keeps it apart. */
export interface EventFeed {
  orgId: string;
  livemode: boolean;
}

/** The feed's name in notifications and among waiters: the firm id for live events, `<firm id>/test` for test ones. */
export const feedKeyOf = (feed: EventFeed): string => (feed.livemode ? feed.orgId : `${feed.orgId}/test`);

/**
 * LISTEN for committed events, handing each payload to `notified`; on loss,
 * reconnect with backoff (0.5 s to 5 s) and call `connected` once listening
 * again, so waiters re-check what they may have missed.
 */
export class EventsListener extends ListenConnection {
  constructor(
    databaseUrl: string,
    handlers: { notified: (payload: string) => void; connected: () => void },
    outage: DatabaseOutage,
    logger: Logger,
  ) {
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
        outage: (err) => outage.backgroundFailed(err, 'the events listener'),
      },
      logger,
    );
  }
}
