import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { keyOfSecret, publicKeyOf, publicKeyText, schemeOfSecret, sign, signingKey, webhookHeaders } from './signing';
import { SecretBox, newSigningMaterial, newSigningSecret } from './secret-box';

describe('Standard Webhooks signing', () => {
  it('matches the Standard Webhooks test vector', () => {
    const key = signingKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    expect(sign(key, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('produces headers the standardwebhooks library verifies, and a tampered body does not verify', () => {
    const secret = newSigningSecret();
    const body = JSON.stringify({ id: 'evt_1', type: 'lead.created', data: { note: 'ünïcode ✓' } });
    const headers = webhookHeaders(signingKey(secret), 'evt_1', new Date(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('lead', 'leed'), headers)).toThrow();
  });

  it('rejects a secret without the whsec_ prefix', () => {
    expect(() => signingKey('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toThrow(/whsec_/);
  });
});

describe('signing secrets at rest', () => {
  const box = new SecretBox(Buffer.alloc(32, 9));

  it('are whsec_ + at least 24 random bytes', () => {
    const a = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(signingKey(a).length).toBeGreaterThanOrEqual(24);
    expect(newSigningSecret()).not.toBe(a);
  });

  it('round-trip through AES-256-GCM, bound to the endpoint id', () => {
    const secret = newSigningSecret();
    const sealed = box.seal(secret, 'endpoint-1');
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed, 'endpoint-1')).toBe(secret);
    expect(() => box.open(sealed, 'endpoint-2')).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 1)).open(sealed, 'endpoint-1')).toThrow();
  });
});

describe('v1a: ed25519 signatures', () => {
  const { secret: privateKey, publicKey } = newSigningMaterial('v1a');

  it('signs {id}.{timestamp}.{body} with the private key; the public key verifies it, and nothing else does', () => {
    expect(privateKey).toMatch(/^whsk_[A-Za-z0-9+/]+=*$/);
    expect(publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ id: 'evt_1', type: 'lead.created', data: { note: 'ünïcode ✓' } });
    const at = new Date();
    const headers = webhookHeaders(keyOfSecret(privateKey), 'evt_1', at, body);
    expect(headers['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    const signature = Buffer.from(headers['webhook-signature'].slice(4), 'base64');
    const content = Buffer.from(`evt_1.${headers['webhook-timestamp']}.${body}`, 'utf8');
    expect(verify(null, content, publicKeyOf(publicKey!), signature)).toBe(true);
    expect(verify(null, Buffer.from(`evt_1.${headers['webhook-timestamp']}.${body} `), publicKeyOf(publicKey!), signature)).toBe(false);
    const other = newSigningMaterial('v1a').publicKey!;
    expect(verify(null, content, publicKeyOf(other), signature)).toBe(false);
    expect(publicKeyText(createPublicKey(keyOfSecret(privateKey) as KeyObject))).toBe(publicKey);
  });

  it('a rotation from v1 to v1a signs with both schemes, newest first; each sealed secret says its scheme', () => {
    const hmac = newSigningMaterial('v1');
    expect([schemeOfSecret(hmac.secret), schemeOfSecret(privateKey)]).toEqual(['v1', 'v1a']);
    const headers = webhookHeaders([keyOfSecret(privateKey), keyOfSecret(hmac.secret)], 'evt_2', new Date(), '{}');
    const [first, second] = headers['webhook-signature'].split(' ');
    expect(first).toMatch(/^v1a,/);
    expect(second).toMatch(/^v1,/);
    expect(new Webhook(hmac.secret).verify('{}', headers)).toEqual({});
    expect(hmac.last4).toBe(hmac.secret.slice(-4));
    expect(newSigningMaterial('v1a').last4).toMatch(/^.{4}$/);
  });
});
