import { SUBSCRIBABLE_EVENT_TYPES } from '../../src/events';
import { Webhook } from 'standardwebhooks';
import { Database } from '../../src/database/sql';
import { EventsService } from '../../src/events';
import { COMMANDS } from '../../src/cli/commands';
import { MAX_ENDPOINTS_PER_FIRM, WebhookEndpointsService } from '../../src/webhooks';
import { createFirm } from '../support/factories';
import { Receiver, waitFor } from '../support/receiver';
import { runCli } from '../support/cli';
import { runCliInProcess } from '../support/cli-in-process';
import { sharedTestApp } from '../support/shared-app';
import { type TestApp } from '../support/test-app';
import { eventsListable, recordEvent } from '../support/events';

/**
 * The real, compiled CLI (`npm run cli` without the build), against the test database: kept where the contract is
 * the process's own (one JSON object on stdout, the secret never in the logs on stderr, exit codes with the error
 * object). The commands' other rules run in-process through the CLI's own parser, command table and failure map
 * (runCliInProcess): a CLI process costs ~2 s of CPU just to load.
 */
const cli = (t: TestApp, args: string[], env: Record<string, string> = {}) =>
  runCli([...args, '--json'], { databaseUrl: t.databaseUrl, env: { LOG_LEVEL: 'info', ...env } });

describe('endpoint CLI (dashboard stand-in)', () => {
  let t: TestApp;
  let rx: Receiver;
  beforeAll(async () => {
    rx = await Receiver.start();
    t = await sharedTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  });
  afterAll(() => rx.close());

  it('create prints one JSON object with the secret (shown only there), and that secret signs the deliveries', async () => {
    const f = await createFirm(t.app, { publish: false });
    const run = await cli(
      t,
      ['endpoint', 'create', '--org', f.slug, '--url', rx.url('/cli'), '--types', 'lead.created,lead.updated', '--description', 'CRM sync'],
      {
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      },
    );
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expect(Object.keys(run.json)).toEqual(['id', 'secret']);
    const { id, secret } = run.json;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(run.stderr).not.toContain(secret.slice(6));

    const listed = await runCliInProcess(t.app, ['endpoint', 'list', '--org', f.orgId, '--json']);
    expect(listed.code).toBe(0);
    expect(listed.json.endpoints).toEqual([
      expect.objectContaining({
        id,
        url: rx.url('/cli'),
        description: 'CRM sync',
        event_types: ['lead.created', 'lead.updated'],
        status: 'enabled',
        secret_last4: secret.slice(-4),
      }),
    ]);
    expect(JSON.stringify(listed.json)).not.toContain(secret.slice(6));
    expect(listed.text).not.toContain(secret.slice(6));
    const api = await t.get('/v1/webhook-endpoints', { key: f.keys.read });
    expect(api.body.endpoints[0]).toEqual(listed.json.endpoints[0]);

    const e = await t.app
      .get(Database)
      .transaction((m) =>
        recordEvent(t.app.get(EventsService), m, { orgId: f.orgId, type: 'lead.updated', data: { lead_id: 'lead_cli' } }),
      );
    const got = await waitFor(() => rx.at('/cli')[0], 'the POST');
    expect((new Webhook(secret).verify(got.body, got.headers as Record<string, string>) as any).id).toBe(e.envelope.id);
  });

  it('disable, enable and delete; unknown ids and bad input are refused with a message', async () => {
    const f = await createFirm(t.app, { publish: false });
    const { endpoint } = await t.app
      .get(WebhookEndpointsService)
      .create({ orgId: f.orgId, url: 'https://hooks.example.com/a', eventTypes: 'call.completed' });
    // The same command objects the CLI runs, in-process (booting a CLI process per step costs ~1.5 s).
    const run = (name: string, flags: Record<string, string>) =>
      COMMANDS.find((c) => c.name === name)!.run({ app: t.app, flags, readInput: async () => '' });
    expect((await run('endpoint disable', { id: endpoint.id })).endpoint).toMatchObject({
      id: endpoint.id,
      status: 'disabled',
      disabled_reason: 'owner',
    });
    expect((await run('endpoint enable', { id: endpoint.id })).endpoint).toMatchObject({
      id: endpoint.id,
      status: 'enabled',
      disabled_reason: null,
    });
    const audit = await t.sql(`SELECT action FROM audit_log WHERE org_id = $1 AND resource_type = 'webhook_endpoint' ORDER BY id`, [
      f.orgId,
    ]);
    expect(audit.map((a) => a.action)).toEqual(['webhook_endpoint.created', 'webhook_endpoint.disabled', 'webhook_endpoint.enabled']);
    expect(await run('endpoint delete', { id: endpoint.id })).toEqual({ id: endpoint.id, deleted: true });
    await expect(run('endpoint delete', { id: endpoint.id })).rejects.toThrow(`no webhook endpoint with id "${endpoint.id}"`);
    await expect(run('endpoint enable', { id: 'nope' })).rejects.toThrow('"nope" is not a webhook endpoint id');
    await expect(run('endpoint create', { org: f.slug, url: 'https://hooks.example.com/a', types: 'webhook.test' })).rejects.toThrow(
      /webhook\.test cannot be subscribed to/,
    );

    // Through the real process: a refusal is exit 1 with one JSON error object (the process's own configuration,
    // without WEBHOOK_ALLOW_PRIVATE_TARGETS, refuses http://); a missing flag is exit 2.
    const [again, http, missing] = await Promise.all([
      cli(t, ['endpoint', 'delete', '--id', endpoint.id]),
      cli(t, ['endpoint', 'create', '--org', f.slug, '--url', 'http://hooks.example.com/a', '--types', 'lead.created']),
      cli(t, ['endpoint', 'create', '--org', f.slug, '--url', 'https://hooks.example.com/a']),
    ]);
    expect(again.code).toBe(1);
    expect(again.json).toEqual({ error: { message: `no webhook endpoint with id "${endpoint.id}"`, exit_code: 1 } });
    expect(again.stderr).toContain(`error: no webhook endpoint with id "${endpoint.id}"`);
    expect(http.code).toBe(1);
    expect(http.json.error.message).toBe('--url must be an https URL (http:// needs WEBHOOK_ALLOW_PRIVATE_TARGETS=true)');
    expect(missing.code).toBe(2);
    expect(missing.json).toEqual({ error: { message: expect.stringMatching(/--types is required/), exit_code: 2 } });
  });

  it('--types subscribes an endpoint to the events about the webhooks; GET /v1/events lists them, by type too', async () => {
    const f = await createFirm(t.app, { publish: false });
    const ops = 'webhook_endpoint.disabled,webhook_endpoint.enabled,webhook_delivery.exhausted,webhook_endpoint.recovered';
    const monitor = await runCliInProcess(t.app, [
      'endpoint',
      'create',
      '--org',
      f.slug,
      '--url',
      rx.url('/cli-ops'),
      '--types',
      ops,
      '--json',
    ]);
    expect(monitor.code).toBe(0);
    const watched = await runCliInProcess(t.app, [
      'endpoint',
      'create',
      '--org',
      f.slug,
      '--url',
      'https://hooks.example.com/watched',
      '--types',
      'call.completed',
      '--json',
    ]);
    const list = await runCliInProcess(t.app, ['endpoint', 'list', '--org', f.orgId, '--json']);
    expect(list.json.endpoints.find((e: any) => e.id === monitor.json.id).event_types).toEqual(ops.split(','));
    expect((await runCliInProcess(t.app, ['endpoint', 'disable', '--id', watched.json.id, '--json'])).code).toBe(0);
    expect((await runCliInProcess(t.app, ['endpoint', 'enable', '--id', watched.json.id, '--json'])).code).toBe(0);
    await eventsListable(
      t,
      (await t.sql(`SELECT id FROM events WHERE org_id = $1`, [f.orgId])).map((r) => r.id),
    );
    // Each answer is checked against the document: these types' data have schemas of their own there.
    const all = await t.get('/v1/events', { key: f.keys.read });
    expect(all.body.events.map((e: any) => [e.type, e.data])).toEqual([
      ['webhook_endpoint.disabled', { endpoint_id: watched.json.id, reason: 'owner' }],
      ['webhook_endpoint.enabled', { endpoint_id: watched.json.id }],
    ]);
    const disabled = await t.get('/v1/events', { key: f.keys.read, query: { type: 'webhook_endpoint.disabled' } });
    expect(disabled.body.events.map((e: any) => e.type)).toEqual(['webhook_endpoint.disabled']);
    // The monitor is sent both, verified like any delivery; the document's webhooks section types each.
    const got = await waitFor(() => (rx.at('/cli-ops').length === 2 ? rx.at('/cli-ops') : null), 'both events at the monitor');
    const conformance = await t.conformance();
    expect(got.map((r) => conformance.checkWebhook(r.headers, r.body)).sort()).toEqual([
      'webhook_endpoint.disabled',
      'webhook_endpoint.enabled',
    ]);
    expect(got.every((r) => new Webhook(monitor.json.secret).verify(r.body, r.headers as Record<string, string>))).toBe(true);
  });

  it('update changes the description and types, prints the endpoint as the API shows it, and refuses a URL', async () => {
    const f = await createFirm(t.app, { publish: false });
    const { endpoint } = await t.app
      .get(WebhookEndpointsService)
      .create({ orgId: f.orgId, url: 'https://hooks.example.com/upd', eventTypes: 'call.completed', description: 'CRM sync' });
    const update = (...flags: string[]) => runCliInProcess(t.app, ['endpoint', 'update', '--id', endpoint.id, ...flags, '--json']);
    const changed = await update('--types', 'lead.updated,lead.created', '--description', 'Intake');
    expect(changed.code).toBe(0);
    const api = await t.get('/v1/webhook-endpoints', { key: f.keys.read });
    expect(changed.json).toEqual(api.body.endpoints[0]);
    expect(changed.json).toMatchObject({ description: 'Intake', event_types: ['lead.created', 'lead.updated'] });
    expect((await update('--description', '')).json.description).toBeNull();
    expect(await update('--types', '')).toEqual(
      expect.objectContaining({ code: 1, message: `--types needs at least one of ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}` }),
    );
    expect((await update()).message).toBe('nothing to change: give a new description, new event types, or both');

    // Through the real process: the URL refused (exit 1, one JSON error object), nothing changed.
    const url = await cli(t, [
      'endpoint',
      'update',
      '--id',
      endpoint.id,
      '--url',
      'https://hooks.example.com/new',
      '--types',
      'call.completed',
    ]);
    expect(url.code).toBe(1);
    expect(url.stdout.trim().split('\n')).toHaveLength(1);
    expect(url.json.error.message).toMatch(/^--url cannot be changed: .*add a new endpoint/);
    const [after] = await t.sql('SELECT url, event_types, description FROM webhook_endpoints WHERE id = $1', [endpoint.id]);
    expect(after).toEqual({ url: 'https://hooks.example.com/upd', event_types: ['lead.created', 'lead.updated'], description: null });
    const actions = await t.sql(`SELECT actor_type FROM audit_log WHERE org_id = $1 AND action = 'webhook_endpoint.updated'`, [f.orgId]);
    expect(actions).toEqual([{ actor_type: 'owner' }, { actor_type: 'owner' }]);
  });

  it('allows at most 5 endpoints per firm, also when created concurrently', async () => {
    const f = await createFirm(t.app, { publish: false });
    const svc = t.app.get(WebhookEndpointsService);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        svc.create({ orgId: f.orgId, url: `https://hooks.example.com/${i}`, eventTypes: 'lead.created' }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(MAX_ENDPOINTS_PER_FIRM);
    for (const r of results.filter((x) => x.status === 'rejected'))
      expect(String((r as PromiseRejectedResult).reason)).toMatch(/already has 5 webhook endpoints/);
    const sixth = await runCliInProcess(t.app, [
      'endpoint',
      'create',
      '--org',
      f.slug,
      '--url',
      'https://hooks.example.com/6',
      '--types',
      'lead.created',
    ]);
    expect(sixth.code).toBe(1);
    expect(sixth.message).toMatch(/already has 5 webhook endpoints/);
    expect(await t.sql(`SELECT count(*)::int AS n FROM webhook_endpoints WHERE org_id = $1`, [f.orgId])).toEqual([{ n: 5 }]);
  });
});
