import pg from 'pg';
import { checkAnswers, checkExits, checkMirror, checkRss } from './check-answers.mjs';
import { checkDeliveries, checkDisabled } from './check-deliveries.mjs';
import { checkEvents } from './check-events.mjs';

const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const epochMs = (column) => `(extract(epoch FROM ${column}) * 1000)::float8`;
// Timestamps as whole milliseconds, as the API writes them (JavaScript dates).
const apiMs = (column) => `floor(extract(epoch FROM ${column}) * 1000)::float8`;

/** After the run: wait (at most `drainS`) until no delivery is pending. Resolves to the seconds it took, or null. */
export async function drain(databaseUrl, drainS) {
  const started = Date.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    while (Date.now() - started < drainS * 1000) {
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`);
      if (rows[0].n === 0) return +((Date.now() - started) / 1000).toFixed(1);
      await pause(500);
    }
    return null;
  } finally {
    await client.end();
  }
}

/** What the checker reads from the database: every event, call, lead, endpoint and delivery. */
async function readDatabase(databaseUrl, firms) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const q = async (sql) => (await client.query(sql)).rows;
    const tags = new Map(firms.flatMap((f) => f.endpoints.map((e) => [e.id, e.tag])));
    return {
      events: await q(`SELECT seq::int, id, org_id, type, ${epochMs('occurred_at')} AS occurred_ms, data FROM events ORDER BY seq`),
      calls: await q(
        `SELECT org_id, call_id, processing_complete, has_recording, lead_id, ${apiMs('updated_at')} AS updated_ms FROM calls`,
      ),
      leads: await q(`SELECT org_id, lead_id, status, external_id, status_reason, ${apiMs('updated_at')} AS updated_ms FROM leads`),
      endpoints: (await q(`SELECT id, org_id, event_types, status FROM webhook_endpoints`)).map((e) => ({ ...e, tag: tags.get(e.id) })),
      deliveries: await q(
        `SELECT id, endpoint_id, event_id, event_type, trigger, status, attempt_count, attempts,
                ${epochMs('created_at')} AS created_ms, ${epochMs('completed_at')} AS completed_ms FROM webhook_deliveries`,
      ),
    };
  } finally {
    await client.end();
  }
}

/** Every invariant, each {name, counts, violations}. */
/** `judgeRss`: a run of fixed length (checkRss). */
export async function checkAll({ db, firms, fleet, http, ledger, mirrors, receivers, judgeRss }) {
  const data = await readDatabase(db.url, firms);
  const timeline = { toggles: fleet.toggles, kills: fleet.kills, outages: fleet.outages };
  const tested = checkAccepted(ledger, data, http.answers);
  return [
    checkEvents({ ...data, ledger }),
    checkDeliveries({ ...data, ...timeline, receipts: receivers.log }),
    tested,
    checkDisabled({ ...data, ...timeline, receipts: receivers.log }),
    checkMirror({ ...data, mirrors }),
    checkAnswers({ answers: http.answers, outages: fleet.outages }),
    checkRss({ processes: fleet.processes, judge: judgeRss }),
    checkExits({ processes: fleet.processes }),
  ];
}

/**
 * Each test event and redelivery answered 202 is a delivery in the database (then judged with the others),
 * and there are as many webhook.test events as tests accepted, plus at most one per test left unanswered.
 */
function checkAccepted(ledger, { deliveries, events }, answers) {
  const violations = [];
  const ids = new Set(deliveries.map((d) => d.id));
  for (const t of [...ledger.tests, ...ledger.redeliveries]) {
    if (!ids.has(t.deliveryId)) violations.push(`accepted delivery ${t.deliveryId} of ${t.eventId} does not exist`);
  }
  const testEvents = events.filter((e) => e.type === 'webhook.test').length;
  const unanswered = answers.filter((a) => a.op === 'test event' && (a.status === 0 || a.status >= 500)).length;
  if (testEvents < ledger.tests.length || testEvents > ledger.tests.length + unanswered) {
    violations.push(`${testEvents} webhook.test events for ${ledger.tests.length} tests accepted and ${unanswered} unanswered`);
  }
  const counts = {
    tests: ledger.tests.length,
    test_events: testEvents,
    tests_unanswered: unanswered,
    redeliveries: ledger.redeliveries.length,
  };
  return { name: 'every test event and redelivery accepted is a delivery, and no other test event exists', counts, violations };
}
