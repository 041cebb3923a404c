import { Injectable } from '@nestjs/common';
import { KeyStanding } from '../auth/index.js';
import { Clock } from '../common/clock.js';
import type { ApiPrincipal } from '../common/http/principal.js';
import { OpsSignals } from '../common/ops/ops-signals.js';
import { Tracing, traceparentOf } from '../common/tracing/tracing.js';
import type { Tx } from '../database/sql.js';
import { InvalidRequestError, NotFoundError, ServiceUnavailableError } from '../common/errors/problems.js';
import { eventIdEnds, eventIdMessage, isEventId, readEventId } from '../common/ids.js';
import { AfterLostError } from './events.errors.js';
import { EVENT_RETENTION_MS, EVENT_RETENTION_TEXT } from './event-rules.js';
import { EventPagesRepository, type PageRead, type PageRows } from './event-pages.repository.js';
import { StandbyHorizon } from './standby-horizon.js';
import { type EventListDto } from './dto/event.dto.js';
import type { EventData, EventType } from './event-catalogue.js';
import type { EventEnvelope, RecordedEvent } from './event-types.js';
import { EventsRepository, type EventRecord } from './events.repository.js';
import type { EventFeed } from './events-listener.js';
import { splitPage } from '../common/pagination/keyset.js';

/** Runs inside the transaction that recorded the event (webhook fan-out). */
export type EventFanOut = (tx: Tx, event: RecordedEvent) => Promise<void>;

/** One event to record: `data` typed by its `type` (see event-catalogue.ts). */
export type EventInput<T extends EventType> = { orgId: string; livemode: boolean; type: T; data: EventData<T>; test?: boolean };

/** One page request of GET /v1/events. */
export type EventListQuery = { after?: string; type?: EventType; limit: number };

/** One page of the log from a checked position, to run again; and whether committed events after it are held back. */
export type EventPager = { page: () => Promise<EventListDto>; heldBack: () => Promise<boolean> };

export function toEnvelope(row: Pick<EventRecord, 'id' | 'type' | 'occurredAt' | 'orgId' | 'test' | 'livemode' | 'data'>): EventEnvelope {
  return {
    id: row.id,
    type: row.type as EventType,
    timestamp: row.occurredAt.toISOString(),
    org: { id: row.orgId },
    test: row.test,
    livemode: row.livemode,
    data: row.data,
  };
}

/**
 * The transactional outbox. A change and the events it causes are written by
 * the same transaction (the caller's tx), whether or not any webhook
 * endpoint exists; fan-out handlers add deliveries in that transaction too.
 */
@Injectable()
export class EventsService {
  private readonly fanOuts: EventFanOut[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly events: EventsRepository,
    private readonly pages: EventPagesRepository,
    private readonly horizon: StandbyHorizon,
    private readonly signals: OpsSignals,
    private readonly tracing: Tracing,
    private readonly standing: KeyStanding,
  ) {}

  /** Webhooks registers its fan-out here at start-up (events does not import webhooks). */
  registerFanOut(handler: EventFanOut): void {
    this.fanOuts.push(handler);
  }

  /** Writes one event; its `data` must be exactly what the catalogue declares for its type. */
  async record<T extends EventType>(tx: Tx, input: EventInput<T>): Promise<RecordedEvent> {
    // A span of its own (tracing on), whose traceparent is stored with the event: its deliveries join this trace.
    const attributes = { 'app.event.type': input.type, 'app.firm.id': input.orgId };
    return this.tracing.inSpan(`outbox record ${input.type}`, { attributes }, async (span) => {
      const event = await this.insertAndFanOut(tx, input, traceparentOf(span));
      span?.setAttribute('app.event.id', event.envelope.id);
      return event;
    });
  }

  private async insertAndFanOut<T extends EventType>(tx: Tx, input: EventInput<T>, traceContext: string | null): Promise<RecordedEvent> {
    const now = this.clock.now();
    const row = await this.signals.guard('outbox', () =>
      this.events.insert(tx, {
        idEnds: eventIdEnds(now),
        orgId: input.orgId,
        type: input.type,
        test: input.test ?? false,
        livemode: input.livemode,
        occurredAt: now,
        data: input.data,
        traceContext,
      }),
    );
    const event: RecordedEvent = { seq: row.seq, orgId: input.orgId, envelope: toEnvelope(row) };
    for (const fanOut of this.fanOuts) await this.signals.guard('outbox', () => fanOut(tx, event));
    return event;
  }

  /** GET /v1/events: the firm's kept events of the key's mode in commit-safe order, one page. */
  async list(feed: EventFeed, opts: EventListQuery): Promise<EventListDto> {
    return this.pager(feed, opts).page();
  }

  /**
   * The page query, which a waiting request (wait=) runs again when woken, and whether committed events after
   * `after` are still held back (wait=: no notification will come for those). `after` is resolved to its position in
   * the statement that reads each page, so a page never follows a position from another history of the database:
   * an `after` the log no longer has answers `after_lost`. With `recheck` (a waiting request's key), each page reads
   * the key's standing in the same statement: once the key is revoked or expired, the page is a 401, never an event
   * committed after it.
   */
  pager(feed: EventFeed, opts: EventListQuery, recheck?: ApiPrincipal): EventPager {
    const after = opts.after ?? null;
    return {
      page: async () => {
        const read: PageRead = { after, type: opts.type, since: this.keptSince(), limit: opts.limit + 1, before: this.horizon.before() };
        const { afterKept, rows } = recheck ? await this.pageRechecked(recheck, feed, read) : await this.pages.page(feed, read);
        if (!afterKept) await this.refuseLostAfter(feed, after!);
        const { items, hasMore } = splitPage(rows, opts.limit);
        const events = items.map(toEnvelope);
        return { events, has_more: hasMore, next_after: events.length ? events[events.length - 1].id : null };
      },
      heldBack: () => this.pages.hasAnyAfter(feed, { after, type: opts.type, since: this.keptSince() }),
    };
  }

  /** The page with the key's standing, judged as every keyed read judges it (401 when revoked or expired). */
  private async pageRechecked(principal: ApiPrincipal, feed: EventFeed, read: PageRead): Promise<PageRows> {
    const { standing, ...page } = await this.pages.pageWithStanding(principal, feed, read);
    this.standing.confirm(principal, standing);
    return page;
  }

  /**
   * `after` is not in the log: read its id. One the service never made: 400. Made over 30 days ago: 400, as before.
   * Made within them: `after_lost` with the kept event to resume after, found from the position the id carries; an
   * id from a later history than the database's is a database behind what this reader saw (an old primary): 503.
   */
  private async refuseLostAfter(feed: EventFeed, after: string): Promise<never> {
    const reading = readEventId(after);
    if (!reading) throw new InvalidRequestError('after names no event of this firm; pass an event id from this log (next_after).', 'after');
    const since = this.keptSince();
    if (reading.madeAt.getTime() < since.getTime())
      throw new InvalidRequestError(
        `after names an event older than ${EVENT_RETENTION_TEXT}, which is no longer kept; start again without after.`,
        'after',
      );
    if (!reading.position) throw new AfterLostError(null);
    const history = await this.events.currentHistory();
    if (history !== null && reading.position.history > history)
      throw new ServiceUnavailableError(
        'The database is behind the history this after comes from (a failover under way). Try again shortly.',
      );
    throw new AfterLostError(await this.pages.newestBefore(feed, reading.position, since));
  }

  /** GET /v1/events/{event_id}: unknown, another firm's or mode's, or no longer kept answer 404 alike. */
  async get(feed: EventFeed, eventId: string): Promise<EventEnvelope> {
    if (!isEventId(eventId)) throw new InvalidRequestError(`${eventIdMessage('event_id')}.`, 'event_id');
    const row = await this.events.findOne(feed, eventId, this.keptSince());
    if (!row) throw new NotFoundError('The event');
    return toEnvelope(row);
  }

  /** The kept event of this firm and mode, or null (redelivery checks the event still exists). */
  async findKept(feed: EventFeed, eventId: string): Promise<EventEnvelope | null> {
    const row = await this.events.findOne(feed, eventId, this.keptSince());
    return row ? toEnvelope(row) : null;
  }

  private keptSince(): Date {
    return new Date(this.clock.now().getTime() - EVENT_RETENTION_MS);
  }
}
