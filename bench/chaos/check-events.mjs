/**
 * Every committed change has exactly one event, and nothing else has one:
 * - each PATCH answered 200 with changed:true has one lead.updated (same lead, the status it answered,
 *   changes among the fields it sent, changed_by its key); a PATCH with no answer (a killed process,
 *   a 5xx in an outage) may have committed, so it may explain at most one event more on its lead;
 *   each lead's lead.updated chain is unbroken (previous_status is the status before) and ends in its status;
 * - each call that finished processing has exactly one call.completed, and no other call has one;
 * - each lead has exactly one lead.created; every event names a call or lead that exists;
 * - the events about the webhooks themselves (the run disables and enables endpoints): per endpoint, disabled and
 *   enabled alternate, disabled first, as the endpoint's state did.
 */
export function checkEvents({ events, calls, leads, ledger }) {
  const violations = [];
  const counts = {
    events: events.length,
    by_type: {},
    patches_changed: 0,
    patches_unchanged: 0,
    patches_409: 0,
    patches_unanswered: 0,
    events_of_unanswered_patches: 0,
  };
  for (const e of events) counts.by_type[e.type] = (counts.by_type[e.type] ?? 0) + 1;
  const operational = ['webhook_endpoint.disabled', 'webhook_endpoint.enabled', 'webhook_delivery.exhausted', 'webhook_endpoint.recovered'];
  for (const e of events) {
    if (![...['call.completed', 'lead.created', 'lead.updated', 'webhook.test'], ...operational].includes(e.type))
      violations.push(`event ${e.id} has an unexpected type ${e.type}`);
  }
  const endpointState = new Map();
  for (const e of events.filter((x) => x.type === 'webhook_endpoint.disabled' || x.type === 'webhook_endpoint.enabled')) {
    const off = e.type === 'webhook_endpoint.disabled';
    if ((endpointState.get(e.data.endpoint_id) ?? false) === off)
      violations.push(`event ${e.id} says endpoint ${e.data.endpoint_id} turned ${off ? 'off' : 'on'}, as it already was`);
    endpointState.set(e.data.endpoint_id, off);
  }
  const key = (org, id) => `${org}/${id}`;
  const byKey = (type, member) => {
    const m = new Map();
    for (const e of events.filter((x) => x.type === type)) {
      const k = key(e.org_id, e.data[member]);
      m.set(k, [...(m.get(k) ?? []), e]);
    }
    return m;
  };
  const completed = byKey('call.completed', 'call_id');
  for (const c of calls) {
    const n = completed.get(key(c.org_id, c.call_id))?.length ?? 0;
    if (c.processing_complete && n !== 1) violations.push(`call ${c.call_id} finished processing and has ${n} call.completed events`);
    if (!c.processing_complete && n !== 0)
      violations.push(`call ${c.call_id} has not finished processing and has ${n} call.completed events`);
    completed.delete(key(c.org_id, c.call_id));
  }
  for (const k of completed.keys()) violations.push(`call.completed for a call that does not exist: ${k}`);
  const created = byKey('lead.created', 'lead_id');
  for (const l of leads) {
    const n = created.get(key(l.org_id, l.lead_id))?.length ?? 0;
    if (n !== 1) violations.push(`lead ${l.lead_id} has ${n} lead.created events`);
    created.delete(key(l.org_id, l.lead_id));
  }
  for (const k of created.keys()) violations.push(`lead.created for a lead that does not exist: ${k}`);
  for (const i of ledger.ingests.filter((x) => x.answer)) {
    if (i.answer.completed_event && !(completedCount(events, i) === 1))
      violations.push(`ingest of ${i.callId} answered completed_event:true without exactly one call.completed`);
  }
  checkLeadUpdates({ events, leads, ledger, counts, violations, key });
  return { name: 'every committed change has exactly one event', counts, violations };
}

const completedCount = (events, i) =>
  events.filter((e) => e.type === 'call.completed' && e.org_id === i.orgId && e.data.call_id === i.callId).length;

function checkLeadUpdates({ events, leads, ledger, counts, violations, key }) {
  const updates = new Map();
  for (const e of events.filter((x) => x.type === 'lead.updated')) {
    const k = key(e.org_id, e.data.lead_id);
    updates.set(k, [...(updates.get(k) ?? []), e]);
  }
  const patches = new Map();
  for (const p of ledger.patches) {
    if (p.status === 200 && p.changed) counts.patches_changed++;
    else if (p.status === 200) counts.patches_unchanged++;
    else if (p.status === 409) counts.patches_409++;
    else if (p.status === 0 || p.status >= 500) counts.patches_unanswered++;
    const k = key(p.orgId, p.leadId);
    patches.set(k, [...(patches.get(k) ?? []), p]);
  }
  for (const l of leads) {
    const k = key(l.org_id, l.lead_id);
    const chain = (updates.get(k) ?? []).sort((a, b) => a.seq - b.seq);
    updates.delete(k);
    const mine = patches.get(k) ?? [];
    const answered = mine
      .filter((p) => p.status === 200 && p.changed)
      .sort((a, b) => Date.parse(a.lead.updated_at) - Date.parse(b.lead.updated_at));
    let unanswered = mine.filter((p) => p.status === 0 || p.status >= 500).length;
    let before = 'new';
    let next = 0;
    for (const e of chain) {
      const d = e.data;
      if (d.previous_status !== before)
        violations.push(`lead ${l.lead_id}: lead.updated ${e.id} says previous_status ${d.previous_status}, the chain says ${before}`);
      if (!Array.isArray(d.changes) || d.changes.length === 0) violations.push(`lead ${l.lead_id}: lead.updated ${e.id} names no change`);
      else if (d.changes.includes('status') !== (d.previous_status !== d.status))
        violations.push(`lead ${l.lead_id}: lead.updated ${e.id} changes ${d.changes} disagree with its statuses`);
      before = d.status;
      const p = answered[next];
      if (p && p.lead.status === d.status && p.keyId === d.changed_by?.id && d.changes.every((f) => f in p.body)) next++;
      else if (unanswered > 0) {
        unanswered--;
        counts.events_of_unanswered_patches++;
      } else violations.push(`lead ${l.lead_id}: lead.updated ${e.id} matches no committed PATCH`);
    }
    for (const p of answered.slice(next))
      violations.push(
        `lead ${l.lead_id}: PATCH ${JSON.stringify(p.body)} answered changed:true at ${p.lead.updated_at} has no lead.updated`,
      );
    if (before !== l.status) violations.push(`lead ${l.lead_id} is ${l.status} but its last lead.updated says ${before}`);
  }
  for (const k of updates.keys()) violations.push(`lead.updated for a lead that does not exist: ${k}`);
}
