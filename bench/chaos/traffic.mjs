import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const DOC = JSON.parse(readFileSync(`${root}/bench/soak-call-document.json`, 'utf8'));
const OGG = readFileSync(`${root}/fixtures/recordings/injury-caller.ogg`);
const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
const STATUSES = ['contacted', 'signed', 'rejected'];

/**
 * The 4xx each operation may answer to a valid request, by the spec: every keyed
 * operation may be rate limited; a PATCH may lose a race (rule 5); a test or a
 * redelivery finds its endpoint turned off. Anything else is a violation.
 */
export const ALLOWED_4XX = {
  'PATCH lead': ['409 status_conflict', '429 rate_limited'],
  'PATCH race': ['409 status_conflict', '429 rate_limited'],
  'test event': ['409 endpoint_disabled', '429 rate_limited'],
  redeliver: ['409 endpoint_disabled', '429 rate_limited'],
  'recording link play': [],
  ingest: [],
  reprocess: [],
  'recording upload': [],
};
export const allowed4xx = (op) => ALLOWED_4XX[op] ?? ['429 rate_limited'];

/**
 * What the traffic did that the checker compares with the database: every PATCH
 * (body, key, answer), every ingestion (answer), every test and redelivery accepted.
 */
export function newLedger() {
  return { patches: [], ingests: [], tests: [], redeliveries: [] };
}

export function callDocument(firm, complete, withLead) {
  const doc = { ...DOC, started_at: new Date(Date.UTC(2026, 2, 1) + firm.seq * 60_000).toISOString(), processing_complete: complete };
  if (!withLead) delete doc.lead;
  return doc;
}

async function ingest(http, ledger, firm, callId, complete, withLead, op) {
  const r = await http.request(op, 'PUT', `/internal/v1/orgs/${firm.orgId}/calls/${callId}`, {
    internal: true,
    body: callDocument(firm, complete, withLead),
  });
  ledger.ingests.push({ orgId: firm.orgId, callId, status: r.status, answer: r.status < 300 ? r.body : null });
  const known = firm.calls.find((c) => c.id === callId);
  if (r.status === 200 || r.status === 201) {
    if (known) known.complete ||= complete;
    else firm.calls.push({ id: callId, complete, withLead });
    if (r.body?.lead_id && !firm.leads.includes(r.body.lead_id)) firm.leads.push(r.body.lead_id);
  } else if (!known && !firm.unsure.some((c) => c.id === callId)) firm.unsure.push({ id: callId, withLead });
  return r;
}

function patchBody() {
  const body = { status: pick(STATUSES) };
  if (Math.random() < 0.3) body.external_id = Math.random() < 0.2 ? null : `crm-${Math.floor(Math.random() * 3)}`;
  if (Math.random() < 0.2) body.status_reason = Math.random() < 0.3 ? null : pick(['called back', 'no answer', 'retained']);
  return body;
}

async function patch(http, ledger, firm, leadId, op, writer = pick(firm.writers)) {
  const body = patchBody();
  const r = await http.request(op, 'PATCH', `/v1/leads/${leadId}`, { key: writer.key, body });
  ledger.patches.push({
    orgId: firm.orgId,
    leadId,
    body,
    keyId: writer.id,
    status: r.status,
    changed: r.body?.changed,
    lead: r.body?.lead,
    t0: r.entry.t0,
  });
  return r;
}

/** The mix: [name, weight, run(firm)]; each run may make more than one request. */
export function operations(http, ledger, { replaceRecordings = false } = {}) {
  const reader = (f) => pick([f.reader, ...f.writers]).key;
  const aCall = (f) => pick(f.calls).id;
  return [
    ['list calls', 12, (f) => http.request('list calls', 'GET', '/v1/calls?limit=20', { key: reader(f) })],
    ['call detail', 10, (f) => http.request('call detail', 'GET', `/v1/calls/${aCall(f)}`, { key: reader(f) })],
    ['transcript', 8, (f) => http.request('transcript', 'GET', `/v1/calls/${aCall(f)}/transcript`, { key: reader(f) })],
    [
      'recording',
      5,
      (f) =>
        http.request('recording', 'GET', `/v1/calls/${pick(f.recorded)}/recording`, { key: reader(f), headers: { range: 'bytes=0-8191' } }),
    ],
    [
      'recording link',
      3,
      async (f) => {
        const link = await http.request('recording link', 'POST', `/v1/calls/${pick(f.recorded)}/recording-link`, { key: reader(f) });
        if (link.status !== 201) return link;
        return http.request('recording link play', 'GET', new URL(link.body.url, 'http://x').pathname, {});
      },
    ],
    ['list leads', 8, (f) => http.request('list leads', 'GET', '/v1/leads?limit=20', { key: reader(f) })],
    ['lead detail', 6, (f) => http.request('lead detail', 'GET', `/v1/leads/${pick(f.leads)}`, { key: reader(f) })],
    ['events', 4, (f) => http.request('events', 'GET', '/v1/events?limit=50', { key: reader(f) })],
    ['PATCH lead', 8, (f) => patch(http, ledger, f, pick(f.leads), 'PATCH lead')],
    // Several clients (each writer key) racing on one lead: some lose with 409 status_conflict (rule 5).
    [
      'PATCH race',
      3,
      (f) => {
        const lead = pick(f.leads);
        return Promise.all([...f.writers, f.writers[0]].map((w) => patch(http, ledger, f, lead, 'PATCH race', w)));
      },
    ],
    ['ingest', 8, (f) => ingest(http, ledger, f, `call_chaos_${f.n}_${++f.seq}`, Math.random() < 0.8, Math.random() < 0.75, 'ingest')],
    [
      'reprocess',
      4,
      (f) => {
        const c = pick([...f.calls, ...f.unsure]);
        return ingest(http, ledger, f, c.id, true, c.withLead, 'reprocess');
      },
    ],
    [
      'recording upload',
      3,
      async (f) => {
        // One upload per call unless replacing: an answer lost to a kill or an outage may still have stored it.
        const candidates = f.calls.filter((c) => replaceRecordings || !f.uploaded.has(c.id));
        if (candidates.length === 0) return null;
        const callId = pick(candidates).id;
        f.uploaded.add(callId);
        const r = await http.request('recording upload', 'PUT', `/internal/v1/orgs/${f.orgId}/calls/${callId}/recording`, {
          internal: true,
          raw: OGG,
          type: 'audio/ogg',
        });
        if (r.status === 200 && !f.recorded.includes(callId)) f.recorded.push(callId);
        return r;
      },
    ],
    [
      'test event',
      1,
      async (f) => {
        const ep = pick(f.endpoints);
        const r = await http.request('test event', 'POST', `/v1/webhook-endpoints/${ep.id}/test`, { key: f.writers[0].key });
        if (r.status === 202) ledger.tests.push({ endpointId: ep.id, deliveryId: r.body.delivery.id, eventId: r.body.delivery.event_id });
        return r;
      },
    ],
    [
      'redeliver',
      1,
      async (f) => {
        const list = await http.request('list deliveries', 'GET', '/v1/webhook-deliveries?limit=20', { key: reader(f) });
        if (list.status !== 200 || list.body.deliveries.length === 0) return list;
        const d = pick(list.body.deliveries);
        const r = await http.request('redeliver', 'POST', `/v1/webhook-deliveries/${d.id}/redeliver`, { key: f.writers[1].key });
        if (r.status === 202) ledger.redeliveries.push({ endpointId: d.endpoint_id, deliveryId: r.body.delivery.id, eventId: d.event_id });
        return r;
      },
    ],
  ];
}

/** `concurrency` loops, each choosing a weighted operation of a random firm, until the run (bench/chaos/run-length.mjs) is over. */
export async function runTraffic(ops, firms, concurrency, run, onError) {
  const total = ops.reduce((s, o) => s + o[1], 0);
  const choose = () => {
    let r = Math.random() * total;
    for (const op of ops) if ((r -= op[1]) < 0) return op;
    return ops[0];
  };
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (!run.over()) {
        const [name, , op] = choose();
        try {
          await op(pick(firms));
        } catch (err) {
          onError(name, err);
        }
      }
    }),
  );
}
