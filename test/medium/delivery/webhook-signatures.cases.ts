import { generateKeyPairSync, sign } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook } from '../../../clients/typescript/src/index';
import { Database } from '../../../src/database/sql';
import { EventsService } from '../../../src/events';
import { DeliveryDispatcher, WebhookEndpointsService, WebhooksWorkerModule } from '../../../src/webhooks';
import { signatures } from '../../support/deliveries';
import { recordEvent } from '../../support/events';
import { createFirm, type TestFirm } from '../../support/factories';
import { newMediumService, type MediumService } from '../../support/medium';
import { Receiver, waitFor, type Received } from '../../support/receiver';

const MIN = 60_000;
const HOUR = 60 * MIN;

/**
 * Public-key signatures (Standard Webhooks `v1a`, ed25519) on the real dispatcher and a real receiver: an endpoint
 * made with `signature: 'v1a'` signs each attempt with its private key (sealed at rest like a `whsec_` secret), and a
 * receiver holding only the public key verifies it with the TypeScript client's verifyWebhook (Node's crypto). The
 * CLI's `--signature ed25519` and the example receiver: test/webhooks/webhook-rotation.cases.ts, test/guides.
 */
describe('public-key signatures (v1a, ed25519)', () => {
  let m: MediumService<DeliveryDispatcher>;
  let rx: Receiver;

  beforeAll(async () => {
    rx = await Receiver.start();
    m = await newMediumService(DeliveryDispatcher, { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, imports: [WebhooksWorkerModule] });
  });
  afterAll(async () => {
    await m.close();
    await rx.close();
  });
  afterEach(() => m.clock.reset());

  const endpoints = () => m.module.get(WebhookEndpointsService);
  /** Records an event and returns the POST the receiver got for it. */
  const deliver = async (orgId: string, path: string): Promise<Received> => {
    const e = await m.module
      .get(Database)
      .transaction((tx) => recordEvent(m.module.get(EventsService), tx, { orgId, type: 'lead.updated', data: { lead_id: 'lead_v1a' } }));
    m.sut.wake();
    return waitFor(() => rx.at(path).find((r) => r.headers['webhook-id'] === e.envelope.id), `the POST of ${e.envelope.id}`);
  };
  const v1aEndpoint = async (f: TestFirm, path: string) =>
    endpoints().create({ orgId: f.orgId, url: rx.url(path), eventTypes: 'lead.updated', signature: 'v1a' });

  it('a real delivery carries v1a, verified with the public key alone; a forged or altered one is refused', async () => {
    const f = await createFirm(m.module, { publish: false });
    const { endpoint, publicKey } = await v1aEndpoint(f, '/v1a');
    expect(publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(endpoint).toMatchObject({ signature: 'v1a', public_key: publicKey, secret_last4: publicKey.slice(-4) });
    expect((await endpoints().list(f.orgId, true))[0]).toMatchObject({ signature: 'v1a', public_key: publicKey });

    const got = await deliver(f.orgId, '/v1a');
    expect(signatures(got)).toEqual([expect.stringMatching(/^v1a,[A-Za-z0-9+/]{86}==$/)]);
    expect(verifyWebhook(got.body, got.headers, { publicKey })).toEqual(JSON.parse(got.body));

    // Forged: a well-formed v1a signature of the same content by a key that is not the endpoint's.
    const forger = generateKeyPairSync('ed25519').privateKey;
    const content = Buffer.from(`${got.headers['webhook-id']}.${got.headers['webhook-timestamp']}.${got.body}`);
    const forged = { ...got.headers, 'webhook-signature': `v1a,${sign(null, content, forger).toString('base64')}` };
    expect(() => verifyWebhook(got.body, forged, { publicKey })).toThrow(/no signature verifies/);
    expect(() => verifyWebhook(got.body.replace('lead_v1a', 'lead_v1b'), got.headers, { publicKey })).toThrow(/no signature verifies/);
    // A v1 value is not a v1a one: no HMAC key, nothing verifies.
    const asV1 = { ...got.headers, 'webhook-signature': String(got.headers['webhook-signature']).replace('v1a,', 'v1,') };
    expect(() => verifyWebhook(got.body, asV1, { publicKey })).toThrow(/no signature verifies/);
    const stale = { ...got.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 600) };
    expect(() => verifyWebhook(got.body, stale, { publicKey })).toThrow(/timestamp/);

    // The private key is stored sealed: the row holds only ciphertext and the public key.
    const [row] = await m.sql(`SELECT secret_enc, public_key, signature FROM webhook_endpoints WHERE id = $1`, [endpoint.id]);
    expect(row).toMatchObject({ signature: 'v1a', public_key: publicKey });
    expect(row.secret_enc).toMatch(/^v1\.[A-Za-z0-9+/]+=*$/);
    expect(row.secret_enc).not.toContain('whsk_');
  });

  it('rotation: both v1a signatures during the overlap, each verified by its own public key; then only the new one', async () => {
    const f = await createFirm(m.module, { publish: false });
    const { endpoint, publicKey: oldKey } = await v1aEndpoint(f, '/v1a-rot');
    m.clock.freeze();
    m.clock.advance(-(24 * HOUR - 2 * MIN));
    const rotated = await endpoints().rotateSecret(endpoint.id);
    m.clock.reset();
    expect(Object.keys(rotated)).toEqual(['id', 'public_key', 'previous_secret_expires_at']);
    const newKey = rotated.public_key!;
    expect(newKey).toMatch(/^whpk_/);
    expect(newKey).not.toBe(oldKey);
    expect((await endpoints().get({ orgId: f.orgId, livemode: true }, endpoint.id)).public_key).toBe(newKey);

    const during = await deliver(f.orgId, '/v1a-rot');
    expect(signatures(during).map((s) => s.slice(0, 4))).toEqual(['v1a,', 'v1a,']);
    expect(verifyWebhook(during.body, during.headers, { publicKey: newKey })).toBeTruthy();
    expect(verifyWebhook(during.body, during.headers, { publicKey: oldKey })).toBeTruthy();

    m.clock.advance(3 * MIN);
    const after = await deliver(f.orgId, '/v1a-rot');
    expect(signatures(after)).toHaveLength(1);
    expect(verifyWebhook(after.body, after.headers, { publicKey: newKey })).toBeTruthy();
    expect(() => verifyWebhook(after.body, after.headers, { publicKey: oldKey })).toThrow(/no signature verifies/);
  });

  it('a v1 endpoint rotated to v1a signs with both schemes during the overlap: the old secret and the new public key each verify', async () => {
    const f = await createFirm(m.module, { publish: false });
    const { endpoint, secret } = await endpoints().create({ orgId: f.orgId, url: rx.url('/v1-to-v1a'), eventTypes: 'lead.updated' });
    expect(endpoint).toMatchObject({ signature: 'v1', public_key: null, secret_last4: secret.slice(-4) });
    const rotated = await endpoints().rotateSecret(endpoint.id, HOUR, undefined, 'v1a');
    const got = await deliver(f.orgId, '/v1-to-v1a');
    expect(signatures(got).map((s) => s.split(',')[0])).toEqual(['v1a', 'v1']);
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toBeTruthy();
    expect(verifyWebhook(got.body, got.headers, { secret })).toBeTruthy();
    expect(verifyWebhook(got.body, got.headers, { publicKey: rotated.public_key })).toBeTruthy();
    expect(await endpoints().get({ orgId: f.orgId, livemode: true }, endpoint.id)).toMatchObject({
      signature: 'v1a',
      public_key: rotated.public_key,
    });
  });
});
