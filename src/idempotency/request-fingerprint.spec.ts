import { canonicalJson, requestFingerprint } from './request-fingerprint';

describe('requestFingerprint', () => {
  it('is the same for the same method, path and body, whatever the order of the body members', () => {
    const a = requestFingerprint('POST', '/v1/test-helpers/calls', { lead: true, answered: { x: 1, y: [2, { b: 1, a: 2 }] } });
    const b = requestFingerprint('post', '/v1/test-helpers/calls/', { answered: { y: [2, { a: 2, b: 1 }], x: 1 }, lead: true });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(canonicalJson({ b: [1, 'x', null], a: { d: false, c: 1.5 } })).toBe('{"a":{"c":1.5,"d":false},"b":[1,"x",null]}');
  });

  it('differs for another path, another method, another body, and no body against an empty one', () => {
    const base = requestFingerprint('POST', '/v1/webhook-endpoints/a/test', undefined);
    expect(requestFingerprint('POST', '/v1/webhook-endpoints/b/test', undefined)).not.toBe(base);
    expect(requestFingerprint('PUT', '/v1/webhook-endpoints/a/test', undefined)).not.toBe(base);
    expect(requestFingerprint('POST', '/v1/webhook-endpoints/a/test', {})).not.toBe(base);
    expect(requestFingerprint('POST', '/v1/x', { lead: true })).not.toBe(requestFingerprint('POST', '/v1/x', { lead: false }));
    expect(requestFingerprint('POST', '/v1/x', [1, 2])).not.toBe(requestFingerprint('POST', '/v1/x', [2, 1]));
  });
});
