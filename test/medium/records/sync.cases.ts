import pg from 'pg';
import { CallsService } from '../../../src/calls';
import type { ApiPrincipal } from '../../../src/common/http/principal';
import { Database } from '../../../src/database/sql';
import { IngestionService } from '../../../src/ingestion';
import { LeadsService } from '../../../src/leads';
import { fullCallDocument, unansweredCallDocument } from '../../support/call-documents';
import { createFirm, type TestFirm } from '../../support/factories';
import { newMediumService, type MediumService } from '../../support/medium';
import { seededRandom } from '../../support/seeded-random';
import { hold } from '../../support/time';

/**
 * The spec's sync recipe under concurrent writes with late commits.
 *
 * The as_of margin is shortened to 300 ms (LIST_AS_OF_MARGIN_MS) so that
 * commits arriving a second after their change, far beyond the margin, are
 * cheap to produce: writers hold their transactions open (a held recordings
 * write, and every writer that must record an event while another session
 * holds the events table). A poller following the recipe against the real
 * as_of must end with a mirror equal to the database; a control poller using
 * the naive as_of (database clock minus the margin) runs beside it and must
 * miss something, which proves the test produces the late commits it claims.
 */
const MARGIN_MS = 300;
const WRITE_FOR_MS = 3000;

type Mirror = Map<string, unknown>;

describe('sync: the poller recipe never misses a late commit (CallsService.list, LeadsService.list)', () => {
  let m: MediumService<CallsService>;
  let firm: TestFirm;
  let principal: ApiPrincipal;

  beforeAll(async () => {
    m = await newMediumService(CallsService, { env: { LIST_AS_OF_MARGIN_MS: String(MARGIN_MS) } });
    firm = await createFirm(m.module);
    principal = await m.principal(firm.keys['read-update-leads']);
  });
  afterAll(() => m.close());

  const ingest = (callId: string, doc: unknown) => m.module.get(IngestionService).ingest(firm.orgId, doc, callId, { livemode: true });
  /** One page of a list, as GET /v1/calls or /v1/leads answers it to the key. */
  const page = async (path: '/v1/calls' | '/v1/leads', q: { limit: number; updated_since?: string; cursor?: string }) => {
    if (path === '/v1/calls') {
      const p = await m.sut.list(principal, q);
      return { asOf: p.as_of, items: p.calls.map((c) => [c.call_id, c] as const), next: p.next_cursor };
    }
    const p = await m.module.get(LeadsService).list(principal, q);
    return { asOf: p.as_of, items: p.leads.map((l) => [l.lead_id, l] as const), next: p.next_cursor };
  };

  /** One run of the recipe: page through with updated_since, upsert on id; returns the first page's as_of. */
  async function run(
    path: '/v1/calls' | '/v1/leads',
    since: string | null,
    mirror: Mirror,
    asOfOverride?: () => Promise<string>,
  ): Promise<string> {
    const naiveAsOf = asOfOverride ? await asOfOverride() : null;
    let cursor: string | undefined;
    let asOf: string | undefined;
    do {
      const p = await page(path, { limit: 100, ...(since ? { updated_since: since } : {}), ...(cursor ? { cursor } : {}) });
      asOf ??= p.asOf;
      for (const [id, item] of p.items) mirror.set(id, item);
      cursor = p.next ?? undefined;
    } while (cursor);
    return naiveAsOf ?? asOf!;
  }

  async function everything(path: '/v1/calls' | '/v1/leads'): Promise<Mirror> {
    const m: Mirror = new Map();
    await run(path, null, m);
    return m;
  }

  it('keeps a mirror equal to the database while others ingest, re-process, patch and commit late', async () => {
    // Starting state: calls, some with leads, and dedicated calls for held recording writes.
    const callIds: string[] = [];
    const leadIds: string[] = [];
    for (let i = 0; i < 24; i++) {
      const id = `call_s${i}`;
      const doc =
        i % 2
          ? fullCallDocument({ started_at: new Date(Date.UTC(2026, 2, 1, i)).toISOString() })
          : unansweredCallDocument({ started_at: new Date(Date.UTC(2026, 2, 1, i)).toISOString() });
      const r = await ingest(id, doc);
      callIds.push(id);
      if (r.lead_id) leadIds.push(r.lead_id);
    }
    const heldIds = ['call_held_0', 'call_held_1', 'call_held_2'];
    for (const id of heldIds) await ingest(id, unansweredCallDocument({ started_at: '2026-02-01T00:00:00Z' }));

    const mirrors = { calls: new Map() as Mirror, leads: new Map() as Mirror };
    const naive = { calls: new Map() as Mirror, leads: new Map() as Mirror };
    const naiveAsOf = async () =>
      (
        await m.sql(
          `SELECT to_char((clock_timestamp() - make_interval(secs => $1::float8 / 1000)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS a`,
          [MARGIN_MS],
        )
      )[0].a as string;

    let writing = true;
    const stats = { ingested: 0, reprocessed: 0, patched: 0, conflicts: 0, held: 0, eventLocks: 0, runs: 0 };
    const failures: string[] = [];

    // Pollers: the recipe, and the naive control, each in its own loop.
    const poller = async (m: { calls: Mirror; leads: Mirror }, asOf?: () => Promise<string>) => {
      let sinceCalls: string | null = null;
      let sinceLeads: string | null = null;
      while (writing) {
        sinceCalls = await run('/v1/calls', sinceCalls, m.calls, asOf);
        sinceLeads = await run('/v1/leads', sinceLeads, m.leads, asOf);
        if (!asOf) stats.runs++;
        await hold(20);
      }
      return { sinceCalls, sinceLeads };
    };
    const polling = poller(mirrors);
    const naivePolling = poller(naive, naiveAsOf);

    // Writers run for WRITE_FOR_MS and, on a slow machine, until every kind of activity has happened enough.
    const until = Date.now() + WRITE_FOR_MS;
    const hardStop = until + 20_000;
    const enough = () => stats.ingested >= 5 && stats.reprocessed >= 5 && stats.patched >= 5 && stats.held >= 2 && stats.eventLocks >= 1;
    const keepWriting = () => Date.now() < hardStop && (Date.now() < until || !enough());
    // Which call is re-processed or patched, and how: seeded and printed, so a failing mix can be replayed.
    const random = seededRandom('sync');
    const pick = <T>(a: T[]) => random.pick(a);

    // New calls (each records events, so each can be held up by the event lock).
    const ingestNew = async () => {
      for (let i = 0; keepWriting(); i++) {
        const id = `call_new_${i}`;
        const doc =
          i % 3
            ? fullCallDocument({ started_at: new Date(Date.UTC(2026, 2, 5, 0, i)).toISOString() })
            : unansweredCallDocument({ started_at: new Date(Date.UTC(2026, 2, 5, 0, i)).toISOString() });
        const r = await ingest(id, doc).catch((e: Error) => e);
        if (r instanceof Error || r.status !== 'created') failures.push(`ingest ${id}: ${r instanceof Error ? r.message : r.status}`);
        else {
          callIds.push(id);
          if (r.lead_id) leadIds.push(r.lead_id);
          stats.ingested++;
        }
      }
    };
    // Re-processing of existing calls: new content, leads found or lost.
    const reprocess = async () => {
      while (keepWriting()) {
        const id = pick(callIds);
        const doc = fullCallDocument({
          started_at: new Date(Date.UTC(2026, 2, 1, Number(id.replace(/\D/g, '')) % 24)).toISOString(),
          urgency: pick(['high', 'normal', 'low']),
          duration_s: Math.floor(random.next() * 600),
        });
        if (random.next() < 0.2) doc.lead = null;
        const r = await ingest(id, doc).catch((e: Error) => e);
        if (r instanceof Error) failures.push(`reprocess ${id}: ${r.message}`);
        else stats.reprocessed++;
      }
    };
    // Firm updates.
    const patcher = async () => {
      for (let i = 0; keepWriting(); i++) {
        if (!leadIds.length) {
          await hold(10);
          continue;
        }
        const r = await m.module
          .get(LeadsService)
          .patch(principal, pick(leadIds), { status: pick(['contacted', 'signed', 'rejected'] as const), status_reason: `sync ${i}` })
          .catch((e: { code?: string; message: string }) => e);
        if ('code' in r && r.code === 'status_conflict') stats.conflicts++;
        else if (!('changed' in r)) failures.push(`patch: ${r.message}`);
        else stats.patched++;
      }
    };
    // Another session holds the events table now and then: every writer that has written its rows
    // and must record an event waits, so it commits up to a second after its updated_at.
    const eventLocker = async () => {
      const client = new pg.Client({ connectionString: m.databaseUrl });
      await client.connect();
      try {
        while (keepWriting()) {
          await hold(300);
          await client.query('BEGIN');
          await client.query('LOCK TABLE events IN SHARE MODE');
          await hold(1000);
          await client.query('COMMIT');
          stats.eventLocks++;
        }
      } finally {
        await client.end();
      }
    };
    // The recordings port, in transactions that idle before writing (no xid yet) and commit a second after writing.
    const heldWriter = async () => {
      const ds = m.module.get(Database);
      const calls = m.sut;
      for (let i = 0; keepWriting(); i++) {
        const id = heldIds[i % heldIds.length];
        await ds.transaction(async (m) => {
          await m.execute('SELECT 1');
          await hold(200);
          await calls.setHasRecording(m, firm.orgId, id, i % 2 === 0);
          await hold(1000);
        });
        stats.held++;
      }
    };

    await Promise.all([ingestNew(), reprocess(), reprocess(), patcher(), patcher(), eventLocker(), heldWriter(), heldWriter()]);
    writing = false;
    const last = await polling;
    const lastNaive = await naivePolling;
    expect(failures).toEqual([]);

    // One more run of each after the writers stopped, exactly as the next scheduled run would be
    // (a real run comes later than the as_of margin; the margin is the scenario, not a wait).
    await hold(MARGIN_MS + 50);
    await run('/v1/calls', last.sinceCalls, mirrors.calls);
    await run('/v1/leads', last.sinceLeads, mirrors.leads);
    await run('/v1/calls', lastNaive.sinceCalls, naive.calls, naiveAsOf);
    await run('/v1/leads', lastNaive.sinceLeads, naive.leads, naiveAsOf);

    const truth = { calls: await everything('/v1/calls'), leads: await everything('/v1/leads') };
    const [dbCounts] = await m.sql(
      `SELECT (SELECT count(*)::int FROM calls WHERE org_id = $1) AS calls, (SELECT count(*)::int FROM leads WHERE org_id = $1) AS leads`,
      [firm.orgId],
    );
    expect(truth.calls.size).toBe(dbCounts.calls);
    expect(truth.leads.size).toBe(dbCounts.leads);

    // The activity was real: many changes, held transactions, lock waits, many poll runs.
    const busy = enough() && stats.runs >= 5;
    expect({ ...stats, busy }).toMatchObject({ busy: true });

    // The recipe's mirror equals the database exactly.
    expect(new Map([...mirrors.calls].sort())).toEqual(new Map([...truth.calls].sort()));
    expect(new Map([...mirrors.leads].sort())).toEqual(new Map([...truth.leads].sort()));

    // The naive as_of (clock minus margin) misses late commits: the scenario is the one that matters.
    const stale = (m: Mirror, truthMap: Mirror) =>
      [...truthMap].filter(([id, item]) => JSON.stringify(m.get(id)) !== JSON.stringify(item)).length;
    expect(stale(naive.calls, truth.calls) + stale(naive.leads, truth.leads)).toBeGreaterThan(0);
  }, 90_000);
});
