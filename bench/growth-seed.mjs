/**
 * Seeding for bench/growth.bench.mjs: firms, calls, leads, events, webhook deliveries, mail and audit rows written in SQL
 * (INSERT ... SELECT over generate_series), shaped exactly as the service writes them.
 *
 * The shapes come from the service itself: a template firm is created through the service's own services and its
 * 60-day demo history (src/demo) is ingested through the real ingestion port, so its calls, leads and events are rows
 * the service wrote. Every seeded call, lead and event is a copy of one of those rows with new ids (in the service's
 * formats, src/common/ids.ts), its firm, and its times shifted; deliveries and their attempt carry the members
 * DeliveryAttempt has; webhook secrets are sealed by the service's SecretBox.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const dist = (p) => fileURLToPath(new URL(`../dist/src/${p}`, import.meta.url));
const DAY_MS = 86_400_000;
/** Calls are spread over the last 60 days (the calls bench's 200,000 calls: one every 25.9 s). */
const HISTORY_DAYS = 60;
const EVENT_TYPES = ['call.completed', 'lead.created', 'lead.updated'];

/**
 * One sortable id body as src/common/ids.ts makes it: 10 Crockford base32 characters of the time in ms, then 16
 * pseudo-random ones (md5 hex digits, all in Crockford's alphabet). A temporary SQL function, inlined by the planner.
 */
const SORTABLE_ID_FUNCTION = `
  CREATE FUNCTION pg_temp.sortable_id(ms bigint, salt text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT ${Array.from({ length: 10 }, (_, k) => `substr('0123456789abcdefghjkmnpqrstvwxyz', ((ms >> ${5 * (9 - k)}) & 31)::int + 1, 1)`).join(' || ')}
           || substr(md5(salt), 1, 16) $$`;
const ISO_FUNCTION = `
  CREATE FUNCTION pg_temp.iso(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$`;
const MS = (col) => `(extract(epoch FROM ${col}) * 1000)::bigint`;

/**
 * The service-made part of a database: migrations, the large firm (the one measured) with a key, the template firm
 * with its ingested history (`templateCalls` demo calls; the first ones walk through every category), and one webhook
 * endpoint per firm made by the service. Returns what the SQL seeding and
 * the measurement need.
 */
export async function prepareDatabase(databaseUrl, secret, templateCalls) {
  require('reflect-metadata');
  const { runMigrations } = require(dist('database/migrate.js'));
  await runMigrations(databaseUrl);
  const { loadConfig } = require(dist('config/app-config.js'));
  const { createApp } = require(dist('create-app.js'));
  const { AccountService } = require(dist('account/index.js'));
  const { ApiKeyService } = require(dist('auth/index.js'));
  const { IngestionService } = require(dist('ingestion/index.js'));
  const { WebhookEndpointsService } = require(dist('webhooks/index.js'));
  const { demoHistory } = require(dist('demo/demo-history.js'));
  const app = await createApp({
    config: loadConfig({ DATABASE_URL: databaseUrl, WEBHOOK_SECRET_KEY: secret, LOG_LEVEL: 'silent', PORT: '0', ROLE: 'api' }),
    databaseUrl,
  });
  await app.init();
  const account = app.get(AccountService);
  const endpoints = app.get(WebhookEndpointsService);
  const hook = (orgId) => endpoints.create({ orgId, url: 'https://hooks.example.com/receptionist', eventTypes: EVENT_TYPES });
  const large = await account.createOrg({ name: 'Large Firm Injury Law', slug: 'large-firm', ownerEmail: 'owner@large.example' });
  await hook(large.id);
  const { key } = await app.get(ApiKeyService).create({ orgId: large.id, name: 'growth bench', set: 'read-update-leads' });
  const template = await account.createOrg({ name: 'Template Firm', slug: 'template-firm', ownerEmail: 'owner@template.example' });
  await hook(template.id);
  await app.get(IngestionService).ingestMany(template.id, demoHistory(new Date(), undefined, templateCalls).documents, { livemode: true });
  return { app, largeId: large.id, templateId: template.id, key };
}

/** The template firm's rows as temporary tables, and the SQL helpers; once per seeding session. */
export async function openSeedSession(client, templateId, largeId) {
  await client.query(`SET synchronous_commit = off`);
  // Every seeded row references a firm, call or endpoint seeded before it: skip the per-row foreign-key triggers when
  // allowed (a superuser, as the embedded server's is); elsewhere they run and seeding is slower.
  await client.query(`SET session_replication_role = replica`).catch(() => undefined);
  await client.query(`SET work_mem = '256MB'`);
  // The secondary indexes are built after the load (bench/growth-indexes.mjs): one sort each, in memory when it fits.
  await client.query(`SET maintenance_work_mem = '1GB'`);
  await client.query(SORTABLE_ID_FUNCTION);
  await client.query(ISO_FUNCTION);
  await client.query(
    `CREATE TEMP TABLE tpl_calls AS
       SELECT (row_number() OVER (ORDER BY started_at, call_id) - 1)::int AS n, c.* FROM calls c WHERE org_id = $1`,
    [templateId],
  );
  await client.query(`CREATE TEMP TABLE tpl_leads AS SELECT * FROM leads WHERE org_id = $1`, [templateId]);
  await client.query(`CREATE TEMP TABLE tpl_refs AS SELECT * FROM call_references WHERE org_id = $1`, [templateId]);
  await client.query(
    `CREATE TEMP TABLE tpl_events AS
       SELECT e.type, e.data::text AS data, e.data->>'call_id' AS call_id, pg_temp.iso(c.started_at) AS started_iso,
              (row_number() OVER (PARTITION BY e.data->>'call_id' ORDER BY e.seq))::int AS k
         FROM events e JOIN calls c ON c.org_id = e.org_id AND c.call_id = e.data->>'call_id' WHERE e.org_id = $1`,
    [templateId],
  );
  await client.query(`CREATE TEMP TABLE firm (n int PRIMARY KEY, id uuid NOT NULL)`);
  await client.query(`INSERT INTO firm VALUES (0, $1), (1, $2)`, [largeId, templateId]);
  // Temporary tables are never analysed by autovacuum; without statistics the planner guesses their joins' sizes.
  await client.query(`ANALYZE tpl_calls, tpl_leads, tpl_refs, tpl_events, firm`);
  const [{ count }] = (await client.query(`SELECT count(*)::int AS count FROM tpl_calls`)).rows;
  return { templateCalls: count };
}

/**
 * Firms n in [from, to) (n >= 2; 0 is the large firm, 1 the template), each with one webhook endpoint whose secret
 * the service's SecretBox sealed.
 */
export async function seedFirms(client, app, from, to, now) {
  if (to <= from) return;
  const { SecretBox } = require(dist('webhooks/secret-box.js'));
  const box = app.get(SecretBox, { strict: false });
  await client.query(
    `INSERT INTO orgs (id, slug, display_name, status, timezone, vertical, number, payment_method_on_file, owner_email, created_at, updated_at)
     SELECT md5('growth-firm-' || n)::uuid, 'firm-' || n, 'Firm ' || n || ' Injury Law', 'live',
            (ARRAY['America/Chicago','America/New_York','America/Denver','America/Los_Angeles'])[1 + n % 4], 'law',
            '+1312' || lpad(n::text, 7, '0'), true, 'owner@firm-' || n || '.example', $3::timestamptz - interval '90 days',
            $3::timestamptz - interval '90 days'
       FROM generate_series($1::int, $2::int - 1) n`,
    [from, to, now],
  );
  await client.query(`INSERT INTO firm SELECT n, md5('growth-firm-' || n)::uuid FROM generate_series($1::int, $2::int - 1) n`, [from, to]);
  await client.query(`ANALYZE firm`);
  const ids = (await client.query(`SELECT n, id FROM firm WHERE n >= $1 AND n < $2`, [from, to])).rows;
  const rows = ids.map(({ id: orgId }) => {
    const id = randomUUID();
    const plain = `whsec_${randomBytes(24).toString('base64url')}`;
    return { id, org_id: orgId, secret_enc: box.seal(plain, id), secret_last4: plain.slice(-4) };
  });
  await client.query(
    `INSERT INTO webhook_endpoints (id, org_id, url, description, event_types, status, secret_enc, secret_last4, last_success_at, health_since,
                                    created_at, updated_at)
     SELECT r.id, r.org_id, 'https://hooks.example.com/receptionist', 'Case management intake', $2::text[], 'enabled', r.secret_enc,
            r.secret_last4, $3::timestamptz - interval '1 minute', $3::timestamptz - interval '90 days', $3::timestamptz - interval '90 days',
            $3::timestamptz - interval '90 days'
       FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, org_id uuid, secret_enc text, secret_last4 text)`,
    [JSON.stringify(rows), EVENT_TYPES, now],
  );
}

/**
 * Calls g in [g0, g1) for the firms n in [firmFrom, firmTo) (or the large firm, n = 0), spread evenly over the last 60
 * days; their leads (the template call's lead, so the demo's share of leads), and for the last `days` days their
 * events and one succeeded delivery each. Returns seconds per table.
 */
export async function seedCalls(client, { g0, g1, firmFrom, firmTo, days, now, templateCalls }) {
  const count = g1 - g0;
  if (count <= 0) return {};
  const t = {};
  const timed = async (name, sql, params) => {
    const t0 = Date.now();
    await client.query(sql, params);
    t[name] = (t[name] ?? 0) + (Date.now() - t0) / 1000;
  };
  await client.query(`DROP TABLE IF EXISTS stage`);
  // Newest first from 10 minutes ago, so no stamp lies ahead of the clock.
  await timed(
    'stage',
    `CREATE TEMP TABLE stage AS
     SELECT s.g, f.id AS org_id, s.started, s.g % $6 AS t,
            'call_' || pg_temp.sortable_id(${MS('s.started')}, 'c' || s.g) AS call_id,
            'lead_' || pg_temp.sortable_id(${MS('s.started')} + 300000, 'l' || s.g) AS lead_id
       FROM (SELECT g, date_trunc('milliseconds', $3::timestamptz - interval '10 minutes'
                    - ((g - $1)::float8 * $7 / $8) * interval '1 millisecond') AS started
               FROM generate_series($1::int, $2::int - 1) g) s
       JOIN firm f ON f.n = $4 + (s.g - $1) % $5`,
    [g0, g1, now, firmFrom, firmTo - firmFrom, templateCalls, HISTORY_DAYS * DAY_MS, count],
  );
  await timed('stage', `ANALYZE stage`);
  await timed(
    'calls',
    `INSERT INTO calls (org_id, call_id, started_at, has_recording, created_at, updated_at, duration_s, answered, category, urgency, language,
                        outcome, from_e164, callback_number, callback_extension, processing_complete, completed_event_at, config_version,
                        lead_id, untrusted, conversation_summary, handling)
     SELECT s.org_id, s.call_id, s.started, t.has_recording, s.started + interval '5 minutes', s.started + interval '5 minutes', t.duration_s,
            t.answered, t.category, t.urgency, t.language, t.outcome, t.from_e164, t.callback_number, t.callback_extension,
            t.processing_complete, CASE WHEN t.completed_event_at IS NOT NULL THEN s.started + interval '5 minutes' END, t.config_version,
            CASE WHEN t.lead_id IS NOT NULL THEN s.lead_id END, t.untrusted, t.conversation_summary, t.handling
       FROM stage s JOIN tpl_calls t ON t.n = s.t ORDER BY s.started`,
  );
  await timed(
    'references',
    `INSERT INTO call_references (org_id, key, call_id)
     SELECT s.org_id, r.key, s.call_id FROM stage s JOIN tpl_calls t ON t.n = s.t JOIN tpl_refs r ON r.call_id = t.call_id`,
  );
  // The demo's follow-up (src/demo/demo-lead.ts): the last 3 days still new, older ones cycle through every status.
  await timed(
    'leads',
    `INSERT INTO leads (org_id, lead_id, call_id, status, status_updated_at, captured_at, created_at, updated_at, category, urgency, language,
                        intake_completeness, phone, phone_e164, phone_extension, email, external_id, status_reason, untrusted_name,
                        untrusted_incident_date, intake, version)
     SELECT s.org_id, s.lead_id, s.call_id, st.status, CASE WHEN st.status <> 'new' THEN s.started + interval '1 day' END, s.started,
            s.started + interval '5 minutes', s.started + CASE WHEN st.status <> 'new' THEN interval '1 day' ELSE interval '5 minutes' END,
            l.category, l.urgency, l.language, l.intake_completeness, l.phone, l.phone_e164, l.phone_extension, l.email,
            CASE WHEN st.status = 'signed' THEN 'CRM-' || s.g END, CASE WHEN st.status = 'rejected' THEN 'Outside our practice area' END,
            l.untrusted_name, l.untrusted_incident_date, l.intake, CASE WHEN st.status <> 'new' THEN 2 ELSE 1 END
       FROM stage s JOIN tpl_calls t ON t.n = s.t JOIN tpl_leads l ON l.call_id = t.call_id
       CROSS JOIN LATERAL (SELECT CASE WHEN s.started > $1::timestamptz - interval '3 days' THEN 'new'
                                       ELSE (ARRAY['new','contacted','contacted','signed','rejected'])[1 + s.g % 5] END AS status) st
      ORDER BY s.started`,
    [now],
  );
  const [{ seq }] = (await client.query(`SELECT coalesce(max(seq), 0)::bigint AS seq FROM events`)).rows;
  await timed(
    'events',
    `INSERT INTO events (id, org_id, type, test, occurred_at, data)
     SELECT 'evt_' || pg_temp.sortable_id(${MS('o.at')}, 'e' || s.g || '.' || e.k), s.org_id, e.type, false, o.at,
            replace(replace(replace(e.data, t.call_id, s.call_id), coalesce(t.lead_id, ''), s.lead_id),
                    '"occurred_at":"' || e.started_iso || '"', '"occurred_at":"' || pg_temp.iso(s.started) || '"')::json
       FROM stage s JOIN tpl_calls t ON t.n = s.t JOIN tpl_events e ON e.call_id = t.call_id
       CROSS JOIN LATERAL (SELECT s.started + interval '5 minutes' + e.k * interval '1 millisecond' AS at) o
      WHERE s.started >= $1::timestamptz - $2 * interval '1 day'
      ORDER BY o.at`,
    [now, days],
  );
  await timed(
    'deliveries',
    `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, attempt_count, attempts, completed_at,
                                     created_at)
     SELECT gen_random_uuid(), e.org_id, w.id, e.id, e.type, 'event', 'succeeded', 1,
            jsonb_build_array(jsonb_build_object('at', pg_temp.iso(e.occurred_at + interval '200 milliseconds'), 'status_code', 200,
                                                 'duration_ms', 80 + e.seq % 200, 'error', NULL, 'response_body', '{"received":true}')),
            e.occurred_at + interval '400 milliseconds', e.occurred_at
       FROM events e JOIN webhook_endpoints w ON w.org_id = e.org_id
      WHERE e.seq > $1
      ORDER BY e.seq`,
    [seq],
  );
  return t;
}

/** Sent owner notices: `perDay` a day over the last `days` days, from the firms n in [firmFrom, firmTo). */
export async function seedMail(client, { firmFrom, firmTo, perDay, days, now }) {
  if (perDay <= 0 || firmTo <= firmFrom) return;
  await client.query(
    `INSERT INTO mail_outbox (org_id, kind, to_address, subject, body, status, attempt_count, next_attempt_at, created_at, sent_at)
     SELECT f.id, 'webhook.delivery_failed', 'owner@firm-' || f.n || '.example', 'Webhook deliveries to your endpoint failed',
            'Deliveries of 3 events to https://hooks.example.com/receptionist failed after every retry. Open the dashboard to '
            || 'see each attempt and redeliver them once your endpoint answers again.', 'sent', 1, x.at, x.at, x.at + interval '2 seconds'
       FROM generate_series(0, $1::int * $2::int - 1) k
       JOIN firm f ON f.n = $3 + k % $4
       CROSS JOIN LATERAL (SELECT $5::timestamptz - interval '10 minutes' - k * (interval '1 day' / $2) AS at) x
      ORDER BY x.at`,
    [days, perDay, firmFrom, firmTo - firmFrom, now],
  );
}

/**
 * One list poll a minute for `days` days from each firm n in [firmFrom, firmTo), as the service audits a read: a
 * `calls.listed` row naming the calls the poll returned (a poll with updated_since sees those since the last one: none
 * most minutes, one or two otherwise).
 */
export async function seedAudit(client, { firmFrom, firmTo, days, now }) {
  if (firmTo <= firmFrom) return;
  await client.query(
    `INSERT INTO audit_log (org_id, at, actor_type, actor_id, action, resource_type, resource_ids, details)
     SELECT f.id, x.at, 'api_key', md5('growth-key-' || f.n)::uuid::text, 'calls.listed', 'call',
            CASE WHEN m % 3 = 0 THEN ARRAY['call_' || pg_temp.sortable_id(${MS('x.at')}, 'a' || f.n || '.' || m)]
                 WHEN m % 7 = 0 THEN ARRAY['call_' || pg_temp.sortable_id(${MS('x.at')}, 'a' || f.n || '.' || m),
                                           'call_' || pg_temp.sortable_id(${MS('x.at')}, 'b' || f.n || '.' || m)]
                 ELSE '{}'::text[] END,
            NULL
       FROM generate_series(1, $1::int * 1440) m
       CROSS JOIN firm f
       CROSS JOIN LATERAL (SELECT $4::timestamptz - m * interval '1 minute' + (f.n % 60) * interval '1 second' AS at) x
      WHERE f.n >= $2 AND f.n < $3
      ORDER BY x.at`,
    [days, firmFrom, firmTo, now],
  );
}
