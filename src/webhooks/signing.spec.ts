import { Webhook } from 'standardwebhooks';
import { sign, signingKey, webhookHeaders } from './signing';
import { SecretBox, newSigningSecret } from './secret-box';

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
