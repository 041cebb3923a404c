import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from './support/call-documents';
import { createFirm } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';

/** Runs an example as its own process, as an integrator would; resolves with its exit code and output. */
const runExample = (file: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((done, fail) => {
    const child = spawn(process.execPath, [resolve(process.cwd(), 'examples', file)], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
  });

describe('reference integrations (examples/)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // No as_of margin, so a pass after a change reads only what changed since the last one.
    t = await startTestApp({ env: { ...internalEnv, LIST_AS_OF_MARGIN_MS: '0' } });
  });
  afterAll(() => t.close());

  it('sync-poller mirrors calls and leads, and a restarted run resumes from the saved as_of', async () => {
    const f = await createFirm(t.app);
    const first = await Promise.all([1, 2, 3].map(() => ingestOk(t, f.orgId, nextCallId(), fullCallDocument())));
    const dir = mkdtempSync(join(tmpdir(), 'sync-poller-'));
    const env = { API_URL: t.baseUrl, API_KEY: f.keys['read-update-leads'], STATE_DIR: dir };
    const mirror = (kind: string) => JSON.parse(readFileSync(join(dir, `${kind}.json`), 'utf8'));

    const run1 = await runExample('sync-poller.mjs', env);
    expect(run1).toMatchObject({ code: 0 });
    const out1 = JSON.parse(run1.stdout);
    expect(out1.calls).toMatchObject({ seen: 3, updated_since: null });
    expect(Object.keys(mirror('calls')).sort()).toEqual(first.map((c) => c.call_id).sort());
    const leadId = first[0].lead_id as string;
    expect(mirror('leads')[leadId]).toMatchObject({ lead_id: leadId, status: 'new' });

    // Between runs: a lead changes and a call arrives. The next run (a new process) starts from the saved as_of.
    expect(
      (await t.request('PATCH', `/v1/leads/${leadId}`, { key: f.keys['read-update-leads'], body: { status: 'contacted' } })).status,
    ).toBe(200);
    const later = await ingestOk(t, f.orgId, nextCallId(), fullCallDocument());
    const run2 = await runExample('sync-poller.mjs', env);
    expect(run2).toMatchObject({ code: 0 });
    const out2 = JSON.parse(run2.stdout);
    expect(out2.calls.updated_since).toBe(out1.calls.as_of);
    expect(out2.leads.updated_since).toBe(out1.leads.as_of);
    expect(out2.calls.seen).toBeLessThan(4);
    expect(Object.keys(mirror('calls'))).toHaveLength(4);
    expect(mirror('calls')[later.call_id]).toMatchObject({ call_id: later.call_id });
    expect(mirror('leads')[leadId]).toMatchObject({ status: 'contacted' });
  });
});
