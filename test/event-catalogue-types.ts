/**
 * Compiled, never run: `npm run typecheck` proves that EventsService.record()
 * takes exactly the `data` the event catalogue (src/events/event-catalogue.ts)
 * declares for each type. Each `@ts-expect-error` marks a call that must not
 * compile; if one ever compiles (data loosened to a free map, a member made
 * optional), the unused directive is itself a type error.
 */
import type { Tx } from '../src/database/sql';
import type { EventData, EventsService } from '../src/events/index';

declare const events: EventsService;
declare const m: Tx;
const orgId = 'org';
const test: EventData<'webhook.test'> = { endpoint_id: 'e', message: 'x' };
const changedBy = { kind: 'api_key', id: 'key_1' } as const;
const updated: EventData<'lead.updated'> = {
  lead_id: 'lead_1',
  call_id: 'call_1',
  status: 'contacted',
  previous_status: 'new',
  changes: ['status'],
  changed_by: changedBy,
  url: 'u',
};

const created: EventData<'lead.created'> = { lead_id: 'lead_1', call_id: 'call_1', status: 'new', category: null, urgency: null, url: 'u' };

export async function typedRecords(): Promise<void> {
  await events.record(m, { orgId, livemode: true, type: 'webhook.test', data: test, test: true });
  await events.record(m, { orgId, livemode: true, type: 'lead.updated', data: updated });

  // @ts-expect-error a member of another type's data
  await events.record(m, { orgId, livemode: true, type: 'webhook.test', data: { ...test, lead_id: 'lead_1' } });
  // @ts-expect-error a member missing
  await events.record(m, { orgId, livemode: true, type: 'webhook.test', data: { endpoint_id: 'e' } });
  // @ts-expect-error one type's data under another type
  await events.record(m, { orgId, livemode: true, type: 'lead.created', data: test });
  // @ts-expect-error a lead status the leads context does not define
  await events.record(m, { orgId, livemode: true, type: 'lead.updated', data: { ...updated, status: 'archived' } });
  // @ts-expect-error a changed field that is not a firm-owned field
  await events.record(m, { orgId, livemode: true, type: 'lead.updated', data: { ...updated, changes: ['category'] } });
  await events.record(m, { orgId, livemode: true, type: 'lead.created', data: created });
  // @ts-expect-error lead.created always carries status new
  await events.record(m, { orgId, livemode: true, type: 'lead.created', data: { ...created, status: 'contacted' } });
  // @ts-expect-error an event type the catalogue does not declare
  await events.record(m, { orgId, livemode: true, type: 'lead.deleted', data: test });
}
