import { Database } from '../../src/database/sql';
import { COMMANDS } from '../../src/cli/commands';
import { EventsService } from '../../src/events';
import { DeliveryDispatcher, WebhookEndpointsService } from '../../src/webhooks';
import { createFirm, type TestFirm } from '../support/factories';
import { runCli } from '../support/cli';
import { runCliInProcess } from '../support/cli-in-process';
import { verifyWebhook } from '../../clients/typescript/src/index';
import { Receiver, waitFor, type Received } from '../support/receiver';
import { sharedTestApp } from '../support/shared-app';
import { type TestApp } from '../support/test-app';
import { signatures, verifies } from '../support/deliveries';
import { recordEvent } from '../support/events';

const MIN = 60_000;
const HOUR = 60 * MIN;

/**
 * `endpoint rotate-secret` on the CLI, and what a receiver and the document see of a rotation. The overlap's rule
 * (both secrets sign until it ends, then only the new one) is tested on the dispatcher: test/medium/delivery/webhooks.cases.ts.
 */
describe('signing-secret rotation (endpoint rotate-secret)', () => {
  let t: TestApp;
  let rx: Receiver;
  beforeAll(async () => {
    rx = await Receiver.start();
    t = await sharedTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  });
  afterAll(() => rx.close());

  const newEndpoint = async (path: string): Promise<{ f: TestFirm; id: string; secret: string }> => {
    const f = await createFirm(t.app, { publish: false });
    const { endpoint, secret } = await t.app
      .get(WebhookEndpointsService)
      .create({ orgId: f.orgId, url: rx.url(path), eventTypes: 'lead.updated' });
    return { f, id: endpoint.id, secret };
  };
  /** Records an event and returns the POST the receiver got for it. */
  const deliver = async (orgId: string, path: string): Promise<Received> => {
    const e = await t.app
      .get(Database)
      .transaction((m) => recordEvent(t.app.get(EventsService), m, { orgId, type: 'lead.updated', data: { lead_id: 'lead_rot' } }));
    t.app.get(DeliveryDispatcher).wake();
    return waitFor(() => rx.at(path).find((r) => r.headers['webhook-id'] === e.envelope.id), `the POST of ${e.envelope.id}`);
  };

  it('the CLI prints one JSON object with the new secret once; during the overlap deliveries verify with either secret', async () => {
    const { f, id, secret: oldSecret } = await newEndpoint('/rot-cli');
    const before = Date.now();
    const run = await runCli(['endpoint', 'rotate-secret', '--id', id, '--json'], {
      databaseUrl: t.databaseUrl,
      env: { LOG_LEVEL: 'info' },
    });
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expect(Object.keys(run.json)).toEqual(['id', 'secret', 'previous_secret_expires_at']);
    const { secret: newSecret, previous_secret_expires_at: expiresAt } = run.json;
    expect(run.json.id).toBe(id);
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(newSecret).not.toBe(oldSecret);
    expect(run.stderr).not.toContain(newSecret.slice(6));
    // The default overlap is 24 hours from the rotation.
    const expiry = Date.parse(expiresAt);
    expect(expiry).toBeGreaterThanOrEqual(before + 24 * HOUR - 1000);
    expect(expiry).toBeLessThanOrEqual(Date.now() + 24 * HOUR + 1000);

    const listed = await t.get('/v1/webhook-endpoints', { key: f.keys.read });
    expect(listed.body.endpoints[0]).toMatchObject({ id, secret_last4: newSecret.slice(-4) });
    expect(listed.text).not.toContain(newSecret.slice(6, -4));

    const got = await deliver(f.orgId, '/rot-cli');
    expect(signatures(got)).toHaveLength(2);
    expect(signatures(got).every((s) => s.startsWith('v1,'))).toBe(true);
    expect(verifies(newSecret, got)).toBe(true);
    expect(verifies(oldSecret, got)).toBe(true);
    expect(verifies(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, got)).not.toBe(true);

    // The document says so: the header's schema admits the two values, its description and rotation example show them.
    const doc = (await t.get('/v1/openapi.json')).body;
    const header = doc.webhooks['lead.updated'].post.parameters.find((p: any) => p.name === 'webhook-signature');
    expect(got.headers['webhook-signature']).toMatch(new RegExp(header.schema.pattern as string));
    expect(header.description).toMatch(/rotat.*two .*space-separated/);
    expect(String(header.examples.rotation.value).split(' ')).toHaveLength(2);
    expect(String(header.examples.rotation.value)).toMatch(new RegExp(header.schema.pattern as string));
  });

  it('create --signature ed25519 prints the public key, no secret; deliveries verify with it; rotate-secret prints a new one, both sign meanwhile', async () => {
    const f = await createFirm(t.app, { publish: false });
    const created = await runCli(
      ['endpoint', 'create', '--org', f.slug, '--url', rx.url('/rot-v1a'), '--types', 'lead.updated', '--signature', 'ed25519', '--json'],
      { databaseUrl: t.databaseUrl, env: { LOG_LEVEL: 'info', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } },
    );
    expect(created.code).toBe(0);
    expect(created.stdout.trim().split('\n')).toHaveLength(1);
    expect(Object.keys(created.json)).toEqual(['id', 'public_key']);
    const { id, public_key: publicKey } = created.json;
    expect(publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(created.stdout + created.stderr).not.toMatch(/whsk_|whsec_/);

    // The API, the CLI's list and its human line show the scheme and the public key (not a secret).
    const listed = await t.get('/v1/webhook-endpoints', { key: f.keys.read });
    expect(listed.body.endpoints[0]).toMatchObject({ id, signature: 'v1a', public_key: publicKey, secret_last4: publicKey.slice(-4) });
    const list = await runCliInProcess(t.app, ['endpoint', 'list', '--org', f.orgId, '--json']);
    expect(list.json.endpoints[0]).toMatchObject({ id, signature: 'v1a', public_key: publicKey });
    expect((await runCliInProcess(t.app, ['endpoint', 'list', '--org', f.orgId])).text).toContain(`v1a ${publicKey}`);

    const got = await deliver(f.orgId, '/rot-v1a');
    expect(got.headers['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(verifyWebhook(got.body, got.headers, { publicKey })).toMatchObject({ type: 'lead.updated' });
    const forged = { ...got.headers, 'webhook-signature': `v1a,${Buffer.alloc(64, 7).toString('base64')}` };
    expect(() => verifyWebhook(got.body, forged, { publicKey })).toThrow(/no signature verifies/);
    // What a receiver gets is what the document says: the header's pattern admits v1a.
    (await t.conformance()).checkWebhook(got.headers, got.body);

    const rotated = await runCliInProcess(t.app, ['endpoint', 'rotate-secret', '--id', id, '--json']);
    expect(rotated.code).toBe(0);
    expect(Object.keys(rotated.json)).toEqual(['id', 'public_key', 'previous_secret_expires_at']);
    const newKey = rotated.json.public_key as string;
    expect(newKey).toMatch(/^whpk_/);
    expect(newKey).not.toBe(publicKey);
    const during = await deliver(f.orgId, '/rot-v1a');
    expect(signatures(during).map((x) => x.slice(0, 4))).toEqual(['v1a,', 'v1a,']);
    expect(verifyWebhook(during.body, during.headers, { publicKey: newKey })).toBeTruthy();
    expect(verifyWebhook(during.body, during.headers, { publicKey })).toBeTruthy();
    // A bad --signature is a usage error.
    const bad = await runCliInProcess(t.app, ['endpoint', 'rotate-secret', '--id', id, '--signature', 'rsa', '--json']);
    expect(bad.code).toBe(2);
    expect(bad.message).toMatch(/--signature must be hmac or ed25519/);
  });

  it('a bad --overlap or an unknown id is refused with a message', async () => {
    const { id } = await newEndpoint('/rot-refused');
    const rotate = COMMANDS.find((c) => c.name === 'endpoint rotate-secret')!;
    const run = (flags: Record<string, string>) => rotate.run({ app: t.app, flags, readInput: async () => '' });
    await expect(run({ id, overlap: 'soon' })).rejects.toThrow(/--overlap must look like 24h/);
    await expect(run({ id, overlap: '8d' })).rejects.toThrow(/between 0 and 7 days/);
    const cli = await runCli(['endpoint', 'rotate-secret', '--id', '00000000-0000-4000-8000-000000000000', '--json'], {
      databaseUrl: t.databaseUrl,
    });
    expect(cli.code).not.toBe(0);
    expect(cli.json.error.message).toMatch(/no webhook endpoint/);
  });
});
