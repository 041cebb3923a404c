import type pg from 'pg';
import type { Tx } from '../../src/database/sql';
import type { EventData, EventFeed, EventType, EventsService, EventWaits, RecordedEvent } from '../../src/events/index';
import { newEventId } from '../../src/common/ids';
import { waitFor } from './receiver';
import type { TestApp } from './test-app';

// The events log lists an event only once its writing transaction is below the snapshot xmin, which
// any open transaction anywhere in the cluster holds back, another test file's included. A test that
// reads the log right after writing would miss events whenever a parallel file holds a transaction open.
const LISTABLE = `txid < pg_snapshot_xmin(pg_current_snapshot())`;

/** Waits (bounded) until the events log can list these committed events. */
export async function eventsListable(t: Pick<TestApp, 'sql'>, ids: string[]): Promise<void> {
  await waitFor(
    async () => (await t.sql(`SELECT count(*)::int AS n FROM events WHERE id = ANY($1) AND ${LISTABLE}`, [ids]))[0].n === ids.length,
    `events ${ids.join(', ')} to be listable`,
    15_000,
  );
}

/**
 * When these committed events are first seen listable (a little late, which only makes a bound counted from it
 * stricter): the start of a latency bound, since another test file's open transaction may hold them back after
 * their commit. Start it right after the commit; await it after the answer.
 */
export const whenListable = (t: Pick<TestApp, 'sql'>, ids: string[]): Promise<number> => eventsListable(t, ids).then(() => Date.now());

/** Waits (bounded) until every committed event of these firms can be listed. */
export async function firmEventsListable(t: Pick<TestApp, 'sql'>, ...orgIds: string[]): Promise<void> {
  await waitFor(
    async () => (await t.sql(`SELECT count(*)::int AS n FROM events WHERE org_id = ANY($1) AND NOT (${LISTABLE})`, [orgIds]))[0].n === 0,
    `the events of ${orgIds.join(', ')} to be listable`,
    15_000,
  );
}

/**
 * A complete `data` of each type (the catalogue's classes hold the compiler to every member): what an
 * event a test records carries beneath the members it cares about, so every answer that lists it still
 * matches the document, where each known type's `data` has its own schema.
 */
const SAMPLE_DATA: { [T in EventType]: EventData<T> } = {
  'call.completed': {
    call_id: 'call_sample',
    occurred_at: '2026-05-01T14:03:12.000Z',
    answered: true,
    duration_s: 184,
    category: 'new_injury_lead',
    urgency: 'normal',
    outcome: 'connected',
    lead_id: null,
    has_recording: false,
    url: 'http://api.test/v1/calls/call_sample',
    dashboard_url: null,
  },
  'lead.created': {
    lead_id: 'lead_sample',
    call_id: 'call_sample',
    status: 'new',
    category: 'new_injury_lead',
    urgency: 'normal',
    url: 'http://api.test/v1/leads/lead_sample',
  },
  'lead.updated': {
    lead_id: 'lead_sample',
    call_id: 'call_sample',
    status: 'contacted',
    previous_status: 'new',
    changes: ['status'],
    changed_by: { kind: 'api_key', id: 'key_sample' },
    url: 'http://api.test/v1/leads/lead_sample',
  },
  'webhook.test': { endpoint_id: '0b9c6f43-5d1e-4c8a-9f2b-7e3d1a6c5b40', message: 'A test.' },
  'webhook_endpoint.disabled': { endpoint_id: '0b9c6f43-5d1e-4c8a-9f2b-7e3d1a6c5b40', reason: 'owner' },
  'webhook_endpoint.enabled': { endpoint_id: '0b9c6f43-5d1e-4c8a-9f2b-7e3d1a6c5b40' },
  'webhook_delivery.exhausted': {
    delivery_id: '6a1f0d2c-3b4e-4f5a-8c9d-0e1f2a3b4c5d',
    event_id: 'evt_01jd5x8m3q0000000000000000',
    endpoint_id: '0b9c6f43-5d1e-4c8a-9f2b-7e3d1a6c5b40',
    last_status_code: 503,
  },
  'webhook_endpoint.recovered': { endpoint_id: '0b9c6f43-5d1e-4c8a-9f2b-7e3d1a6c5b40', failing_since: '2026-05-01T13:02:11.000Z' },
};

/** `data` of a known type: a complete sample with the test's own members over it; another type's as given. */
export const eventData = (type: string, own: Record<string, unknown> = {}): Record<string, unknown> =>
  type in SAMPLE_DATA ? { ...SAMPLE_DATA[type as EventType], ...own } : own;

/** Inserts an event row the way EventsService.record does, through a given client (tests hold transactions open with it). */
export async function insertEvent(
  client: pg.ClientBase | pg.Pool,
  orgId: string,
  opts: { type?: string; data?: Record<string, unknown>; at?: Date } = {},
): Promise<string> {
  const at = opts.at ?? new Date();
  const id = newEventId(at);
  await client.query(`INSERT INTO events (id, org_id, type, test, occurred_at, data) VALUES ($1, $2, $3, false, $4, $5)`, [
    id,
    orgId,
    opts.type ?? 'lead.created',
    at,
    JSON.stringify(eventData(opts.type ?? 'lead.created', opts.data ?? { lead_id: `lead_${id.slice(4)}` })),
  ]);
  return id;
}

/** A key created before webhooks existed: same firm, scopes without the webhook ones. */
export async function restrictKey(t: TestApp, keyId: string, scopes: string[]): Promise<void> {
  await t.sql(`UPDATE api_keys SET scopes = $2 WHERE id = $1`, [keyId, scopes]);
}

/**
 * Records an event through the real outbox (fan-out included) with the test's
 * own members over a complete sample `data` (eventData): these tests are about
 * ordering, delivery and retention, not payloads, whose types are checked where
 * the service builds them (see test/event-catalogue-types.ts).
 */
export function recordEvent(
  events: EventsService,
  manager: Tx,
  input: { orgId: string; type: EventType; data: Record<string, unknown>; test?: boolean; livemode?: boolean },
): Promise<RecordedEvent> {
  const data = eventData(input.type, input.data) as unknown as EventData<EventType>;
  return events.record(manager, { ...input, livemode: input.livemode ?? true, data });
}

/**
 * Calls `seen` with the feed and query of every page query the events service runs from now on (a wrapper
 * that calls through): how the wait tests count the queries a waiting request costs.
 */
export function onEachEventsPage(
  events: EventsService,
  seen: (feed: EventFeed, query: Parameters<EventsService['pager']>[1]) => void,
): void {
  const pager = events.pager.bind(events);
  events.pager = (feed, query, recheck) => {
    const p = pager(feed, query, recheck);
    return { ...p, page: () => (seen(feed, query), p.page()) };
  };
}

/**
 * Calls `seen` with the feed key and the reason of every wake a waiting request's subscription receives from now on
 * (a wrapper that calls through): which notifications reached which feed.
 */
export function onEachWake(
  waits: EventWaits,
  seen: (feed: string, why: Parameters<ReturnType<EventWaits['subscribe']>['wake']>[0]) => void,
): void {
  const subscribe = waits.subscribe.bind(waits);
  waits.subscribe = (feed, type) => {
    const sub = subscribe(feed, type);
    const wake = sub.wake.bind(sub);
    sub.wake = (why) => (seen(feed, why), wake(why));
    return sub;
  };
}
