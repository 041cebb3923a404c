import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { eventsListable } from '../support/events';
import { Webhook } from 'standardwebhooks';
import { WebhookEndpointsService } from '../../src/webhooks';
import { createFirm } from '../support/factories';
import { freePort } from '../support/net';
import { waitFor } from '../support/receiver';
import { firmEventsListable } from '../support/events';
import { sharedTestApp } from '../support/shared-app';
import { type TestApp } from '../support/test-app';

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
    t = await sharedTestApp({ ...internalEnv, LIST_AS_OF_MARGIN_MS: '0', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  });

  it('sync-poller mirrors calls and leads and follows the events, resuming from the saved as_of and after, past an after a failover lost', async () => {
    const f = await createFirm(t.app);
    const first = await Promise.all([1, 2, 3].map(() => ingestOk(t, f.orgId, nextCallId(), fullCallDocument())));
    const dir = mkdtempSync(join(tmpdir(), 'sync-poller-'));
    const env = { API_URL: t.baseUrl, API_KEY: f.keys['read-update-leads'], STATE_DIR: dir };
    const mirror = (kind: string) => JSON.parse(readFileSync(join(dir, `${kind}.json`), 'utf8'));

    // Listable once every older transaction of the cluster has ended (another test's CREATE DATABASE holds them back).
    await firmEventsListable(t, f.orgId);
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
    await firmEventsListable(t, f.orgId);
    const run2 = await runExample('sync-poller.mjs', env);
    expect(run2).toMatchObject({ code: 0 });
    const out2 = JSON.parse(run2.stdout);
    expect(out2.calls.updated_since).toBe(out1.calls.as_of);
    expect(out2.leads.updated_since).toBe(out1.leads.as_of);
    expect(out2.calls.seen).toBeLessThan(4);
    expect(Object.keys(mirror('calls'))).toHaveLength(4);
    expect(mirror('calls')[later.call_id]).toMatchObject({ call_id: later.call_id });
    expect(mirror('leads')[leadId]).toMatchObject({ status: 'contacted' });
    // The events log too: every event once, resuming from the saved after.
    expect(out1.events).toMatchObject({ restarts: 0 });
    expect(out1.events.seen).toBeGreaterThan(0);
    expect(out2.events.seen).toBeGreaterThan(0);

    // A failover loses the event the saved after names; the next run resumes from restart_after, handling only what is new.
    await t.sql('DELETE FROM events WHERE id = $1', [out2.events.after]);
    expect((await t.request('PATCH', `/v1/leads/${leadId}`, { key: f.keys['read-update-leads'], body: { status: 'signed' } })).status).toBe(
      200,
    );
    await firmEventsListable(t, f.orgId);
    const run3 = await runExample('sync-poller.mjs', env);
    expect(run3).toMatchObject({ code: 0 });
    expect(JSON.parse(run3.stdout).events).toMatchObject({ restarts: 1, seen: 1 });
  });

  /** Starts the receiver as its own process; resolves once it listens. */
  const startReceiver = async (env: Record<string, string>): Promise<ChildProcess> => {
    const child = spawn(process.execPath, [resolve(process.cwd(), 'examples', 'webhook-receiver.mjs')], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    await waitFor(() => out.includes('listening') || child.exitCode !== null, 'the receiver to listen', 15_000);
    if (child.exitCode !== null) throw new Error(`receiver exited: ${out}`);
    return child;
  };
  const stop = (child: ChildProcess) =>
    new Promise<void>((done) => {
      child.once('close', () => done());
      child.kill('SIGTERM');
    });

  it('webhook-receiver verifies, refuses stale or forged posts, de-duplicates, skips its own echoes and catches up after downtime', async () => {
    const f = await createFirm(t.app);
    const port = await freePort();
    const { endpoint, secret } = await t.app
      .get(WebhookEndpointsService)
      .create({ orgId: f.orgId, url: `http://127.0.0.1:${port}/hook`, eventTypes: 'lead.created,lead.updated' });
    expect(endpoint.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const dir = mkdtempSync(join(tmpdir(), 'webhook-receiver-'));
    const ownKey = f.keys['read-update-leads'];
    const otherKey = f.keys['read-no-transcripts-update-leads'];
    const env = { PORT: String(port), WEBHOOK_SECRET: secret, API_URL: t.baseUrl, API_KEY: ownKey, STATE_DIR: dir };
    const handled = (): { id: string; type: string; via: string; action: string }[] =>
      existsSync(join(dir, 'handled.ndjson'))
        ? readFileSync(join(dir, 'handled.ndjson'), 'utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l))
        : [];
    const patch = (leadId: string, key: string, status: string) => t.request('PATCH', `/v1/leads/${leadId}`, { key, body: { status } });

    let rx = await startReceiver(env);
    try {
      const { lead_id: leadId } = await ingestOk(t, f.orgId, nextCallId(), fullCallDocument());
      await waitFor(() => handled().find((h) => h.type === 'lead.created'), 'lead.created handled', 15_000);
      expect((await patch(leadId, ownKey, 'contacted')).status).toBe(200);
      expect((await patch(leadId, otherKey, 'signed')).status).toBe(200);
      await waitFor(() => handled().filter((h) => h.type === 'lead.updated').length === 2, 'both lead.updated', 15_000);
      // The two updates may be sent concurrently, so compared in a fixed order.
      const seen = handled().map((h) => `${h.type} ${h.via} ${h.action}`);
      expect(seen[0]).toBe('lead.created webhook handled');
      expect(seen.slice(1).sort()).toEqual(['lead.updated webhook handled', 'lead.updated webhook skipped-echo']);

      // Posts made by hand: a good one once, its replay, a forged body and a stale timestamp.
      const body = JSON.stringify({
        id: 'evt_0000handmade',
        type: 'lead.created',
        timestamp: new Date().toISOString(),
        test: false,
        data: {},
      });
      const signed = (at: Date, b = body) => ({
        'webhook-id': 'evt_0000handmade',
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign('evt_0000handmade', at, b),
      });
      // Raw fetch on purpose: this posts to the example webhook receiver, not to the service, so no document applies.
      const post = async (headers: Record<string, string>, b = body) => {
        const res = await fetch(`http://127.0.0.1:${port}/hook`, { method: 'POST', headers, body: b });
        return { status: res.status, text: await res.text() };
      };
      const now = new Date();
      expect(await post(signed(now))).toEqual({ status: 200, text: 'handled' });
      expect(await post(signed(now))).toEqual({ status: 200, text: 'duplicate' });
      expect((await post(signed(now), body.replace('lead.created', 'lead.updated'))).status).toBe(401);
      const stale = new Date(Date.now() - 10 * 60_000);
      const old = await post(signed(stale));
      expect(old.status).toBe(401);
      expect(old.text).toMatch(/too old/i);
    } finally {
      await stop(rx);
    }

    // Down: the lead changes, its delivery fails (and is retried minutes later). On restart the receiver reads /v1/events.
    const before = handled().length;
    const [lead] = handled().filter((h) => h.type === 'lead.created');
    const leadRow = (await t.sql(`SELECT lead_id FROM leads WHERE org_id = $1`, [f.orgId]))[0];
    expect(lead).toEqual({ id: expect.stringMatching(/^evt_/), type: 'lead.created', via: 'webhook', action: 'handled' });
    expect((await patch(leadRow.lead_id, otherKey, 'rejected')).status).toBe(200);
    // And a failover lost the newest event it handled, where its catch-up starts: it goes on from restart_after.
    const { last } = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as { last: string };
    expect(await t.sql('DELETE FROM events WHERE id = $1 RETURNING id', [last])).toHaveLength(1);
    // The log lists an event once every older transaction of the cluster has ended (another test file's clone of the
    // template database included): the receiver catches up once, at start, so it starts once the change is listable.
    const [missed] = await t.sql(`SELECT id FROM events WHERE org_id = $1 AND type = 'lead.updated' ORDER BY txid DESC, seq DESC LIMIT 1`, [
      f.orgId,
    ]);
    await eventsListable(t, [missed.id]);
    rx = await startReceiver(env);
    try {
      await waitFor(() => handled().length > before, 'the missed event caught up', 15_000);
      expect(handled().slice(before)).toEqual([expect.objectContaining({ type: 'lead.updated', via: 'catch-up', action: 'handled' })]);
    } finally {
      await stop(rx);
    }
  }, 90_000);

  it('webhook-receiver with WEBHOOK_PUBLIC_KEY verifies a real v1a delivery and refuses a forged one and an HMAC-signed one', async () => {
    const f = await createFirm(t.app);
    const port = await freePort();
    const { publicKey } = await t.app
      .get(WebhookEndpointsService)
      .create({ orgId: f.orgId, url: `http://127.0.0.1:${port}/hook`, eventTypes: 'lead.created', signature: 'v1a' });
    const dir = mkdtempSync(join(tmpdir(), 'webhook-receiver-v1a-'));
    const env = { PORT: String(port), WEBHOOK_PUBLIC_KEY: publicKey, API_URL: t.baseUrl, API_KEY: f.keys.read, STATE_DIR: dir };
    const handled = () => (existsSync(join(dir, 'handled.ndjson')) ? readFileSync(join(dir, 'handled.ndjson'), 'utf8') : '');
    const rx = await startReceiver(env);
    try {
      await ingestOk(t, f.orgId, nextCallId(), fullCallDocument());
      await waitFor(() => handled().includes('"type":"lead.created","via":"webhook","action":"handled"'), 'lead.created handled', 15_000);
      const body = JSON.stringify({
        id: 'evt_0000forged',
        type: 'lead.created',
        timestamp: new Date().toISOString(),
        test: false,
        data: {},
      });
      const at = new Date();
      const ts = String(Math.floor(at.getTime() / 1000));
      const content = Buffer.from(`evt_0000forged.${ts}.${body}`);
      // Raw fetch on purpose: this posts to the example webhook receiver, not to the service, so no document applies.
      const post = async (signature: string) =>
        (
          await fetch(`http://127.0.0.1:${port}/hook`, {
            method: 'POST',
            headers: { 'webhook-id': 'evt_0000forged', 'webhook-timestamp': ts, 'webhook-signature': signature },
            body,
          })
        ).status;
      expect(await post(`v1a,${sign(null, content, generateKeyPairSync('ed25519').privateKey).toString('base64')}`)).toBe(401);
      const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
      expect(await post(new Webhook(secret).sign('evt_0000forged', at, body))).toBe(401);
      expect(handled()).not.toContain('evt_0000forged');
    } finally {
      await stop(rx);
    }
  }, 60_000);
});
