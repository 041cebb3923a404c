import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli';
import { CROSS_FIELD_CASES } from '../support/call-document-cases';
import { TableChecksummer, changedTables, waitForQuiet } from '../support/db-checksum';
import { fullCallDocument, internalEnv, nextCallId, putCall, unansweredCallDocument } from '../support/call-documents';
import { createFirm, type TestFirm } from '../support/factories';
import { startTestApp, TEST_INTERNAL_TOKEN, TEST_SECRET_KEY, type TestApp } from '../support/test-app';

/** A complete document whose one briefing starts at `turn`. */
function briefingAt(turn: number): Record<string, any> {
  const doc = fullCallDocument();
  doc.transcript.briefings[0].start_turn = turn;
  return doc;
}

/**
 * The HTTP contract of the pipeline's route (access, 201/200 and their answer, the 400 that names the member) and
 * the CLI's `call ingest`. What one call's transaction writes, re-processing, and every rule a document is refused
 * by are tested on IngestionService: test/medium/records/ingestion.cases.ts.
 */
describe('ingestion: PUT /internal/v1/orgs/{org_id}/calls/{call_id} and call ingest', () => {
  let t: TestApp;
  let firm: TestFirm;
  const events = async (orgId: string, type?: string) =>
    t.sql(
      `SELECT type, data::text AS data FROM events WHERE org_id = $1 ${type ? 'AND type = $2' : ''} ORDER BY seq`,
      type ? [orgId, type] : [orgId],
    );

  beforeAll(async () => {
    t = await startTestApp({ env: { ...internalEnv, DASHBOARD_URL: 'https://dash.test' } });
    firm = await createFirm(t.app);
  });
  afterAll(() => t.close());

  describe('access', () => {
    it('refuses a wrong token with 401 and an unknown or malformed firm with 404', async () => {
      const bad = await t.request('PUT', `/internal/v1/orgs/${firm.orgId}/calls/c1`, {
        body: fullCallDocument(),
        headers: { authorization: 'Bearer wrong-token-0123456789' },
      });
      expect(bad.status).toBe(401);
      const apiKey = await t.request('PUT', `/internal/v1/orgs/${firm.orgId}/calls/c1`, {
        body: fullCallDocument(),
        key: firm.keys['read-update-leads'],
      });
      expect(apiKey.status).toBe(401);
      const unknown = await putCall(t, '6f1c1f7e-1d1a-4c4e-9a51-3c7b5e0b9a11', 'c1', fullCallDocument());
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('not_found');
      const malformed = await putCall(t, 'not-a-uuid', 'c1', fullCallDocument());
      expect(malformed.status).toBe(404);
      // None of the refused requests wrote the call, whichever firm it was sent for.
      expect(await t.sql(`SELECT count(*)::int AS n FROM calls WHERE call_id = 'c1'`)).toEqual([{ n: 0 }]);
    });

    it('is not in the public OpenAPI document', async () => {
      const doc = await t.get('/v1/openapi.json');
      expect(Object.keys(doc.body.paths).some((p) => p.startsWith('/internal'))).toBe(false);
      // The public operations are there; only the internal tree is left out.
      expect(doc.body.paths['/v1/calls'].get['x-required-scope']).toBe('calls:read');
      expect(doc.body.paths['/v1/leads/{lead_id}'].patch['x-required-scope']).toBe('leads:write');
    });

    it('does not exist at all when INTERNAL_API_TOKEN is unset', async () => {
      const other = await startTestApp();
      try {
        const r = await other.request('PUT', `/internal/v1/orgs/${firm.orgId}/calls/c1`, {
          body: fullCallDocument(),
          headers: { authorization: `Bearer ${TEST_INTERNAL_TOKEN}` },
        });
        expect(r.status).toBe(404);
      } finally {
        await other.close();
      }
    });
  });

  describe('a call: 201 when new, 200 when re-processed', () => {
    it('answers the call id, its status, the lead and whether call.completed was recorded', async () => {
      const callId = nextCallId();
      const created = await putCall(t, firm.orgId, callId, fullCallDocument());
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        call_id: callId,
        status: 'created',
        lead_id: expect.stringMatching(/^lead_/),
        lead_created: true,
        completed_event: true,
      });
      const again = await putCall(t, firm.orgId, callId, fullCallDocument({ urgency: 'normal' }));
      expect(again.status).toBe(200);
      expect(again.body).toEqual({
        call_id: callId,
        status: 'reprocessed',
        lead_id: created.body.lead_id,
        lead_created: false,
        completed_event: false,
      });
    });
  });

  describe('a refused document: 400 naming the member, nothing written', () => {
    it.each([
      ['an unknown category', fullCallDocument({ category: 'bogus' }), 'category'],
      ['a briefing beyond the turns', briefingAt(7), 'transcript.briefings[0]'],
      ['an unanswered call with outcome connected', unansweredCallDocument({ outcome: 'connected' }), 'outcome'],
      ['a body call_id that differs from the path', fullCallDocument({ call_id: 'other' }), 'call_id'],
      ['an object member given an array', fullCallDocument({ handling: [] }), 'handling'],
    ])('refuses %s', async (_name, doc, param) => {
      const callId = nextCallId();
      const before = (await events(firm.orgId)).length;
      const r = await putCall(t, firm.orgId, callId, doc);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('invalid_request');
      expect(r.body.param).toBe(param);
      expect(r.body.detail).toContain(param);
      expect(r.body.errors[0]).toEqual({ param, message: expect.any(String) });
      expect(await t.sql('SELECT count(*)::int AS n FROM calls WHERE org_id = $1 AND call_id = $2', [firm.orgId, callId])).toEqual([
        { n: 0 },
      ]);
      expect((await events(firm.orgId)).length).toBe(before);
    });

    it('refuses a body that is not an object', async () => {
      const r = await putCall(t, firm.orgId, nextCallId(), [fullCallDocument()]);
      expect(r.status).toBe(400);
      expect(r.body.param).toBe('(document)');
    });
  });

  describe('CLI: call ingest', () => {
    const cli = (args: string[], input?: string) =>
      spawnSync(process.execPath, ['dist/src/cli/main.js', ...args], {
        input,
        encoding: 'utf8',
        env: { ...process.env, DATABASE_URL: t.databaseUrl, WEBHOOK_SECRET_KEY: TEST_SECRET_KEY, LOG_LEVEL: 'silent' },
      });

    it('reads NDJSON from stdin, generates missing call ids, and prints {"call_ids": [...]} with --json', async () => {
      const given = nextCallId('cli_');
      const ndjson = [JSON.stringify({ ...unansweredCallDocument(), call_id: given }), '', JSON.stringify(fullCallDocument())].join('\n');
      const r = cli(['call', 'ingest', '--org', firm.slug, '--file', '-', '--json'], ndjson);
      expect(r.status).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(Object.keys(out)).toEqual(['call_ids']);
      expect(out.call_ids).toHaveLength(2);
      expect(out.call_ids[0]).toBe(given);
      expect(out.call_ids[1]).toMatch(/^call_/);
      const rows = await t.sql(
        'SELECT call_id, lead_id IS NOT NULL AS has_lead FROM calls WHERE org_id = $1 AND call_id = ANY($2) ORDER BY call_id',
        [firm.orgId, out.call_ids],
      );
      expect(rows).toHaveLength(2);
    });

    it('reads a JSON array from a file, and refuses the whole input when one document is invalid', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ingest-'));
      const ok = [nextCallId('cli_'), nextCallId('cli_')];
      const file = join(dir, 'calls.json');
      writeFileSync(
        file,
        JSON.stringify(
          [
            { ...unansweredCallDocument(), call_id: ok[0] },
            { ...unansweredCallDocument(), call_id: ok[1] },
          ],
          null,
          2,
        ),
      );
      const good = cli(['call', 'ingest', '--org', firm.orgId, '--file', file, '--json']);
      expect(good.status).toBe(0);
      expect(JSON.parse(good.stdout)).toEqual({ call_ids: ok });

      const bad = [nextCallId('cli_'), nextCallId('cli_')];
      writeFileSync(
        file,
        JSON.stringify([
          { ...unansweredCallDocument(), call_id: bad[0] },
          { ...unansweredCallDocument(), call_id: bad[1], urgency: 'extreme' },
        ]),
      );
      const refused = cli(['call', 'ingest', '--org', firm.orgId, '--file', file, '--json']);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('[1].urgency');
      expect(JSON.parse(refused.stdout).error.message).toContain('[1].urgency');
      expect(await t.sql('SELECT count(*)::int AS n FROM calls WHERE org_id = $1 AND call_id = ANY($2)', [firm.orgId, bad])).toEqual([
        { n: 0 },
      ]);
    });

    it("refuses documents the spec's rules refuse, naming each member, writing nothing", async () => {
      // Six cross-field rules, then a transcript that is an array (it used to reach the transcript code and throw).
      const cases = CROSS_FIELD_CASES.slice(0, 6);
      const docs = [...cases.map(([, make]) => make()), fullCallDocument({ transcript: [] })];
      await waitForQuiet(t);
      const checksums = await TableChecksummer.open(t.databaseUrl);
      try {
        const before = await checksums.take();
        const r = await runCli(['call', 'ingest', '--org', firm.slug, '--file', '-', '--json'], {
          databaseUrl: t.databaseUrl,
          stdin: JSON.stringify(docs),
        });
        expect(r.code).toBe(1);
        for (const [i, [, , param]] of cases.entries()) expect(r.json.error.message).toContain(`[${i}].${param}`);
        expect(r.json.error.message).toContain('[6].transcript: must be an object');
        expect(r.stderr).not.toMatch(/TypeError/);
        expect(changedTables(before, await checksums.take())).toEqual([]);
      } finally {
        await checksums.close();
      }
    });
  });
});
