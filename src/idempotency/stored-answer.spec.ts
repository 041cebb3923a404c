import { openAnswer, sealAnswer } from './stored-answer';

describe('a stored answer', () => {
  const answer = { status: 201, headers: { 'cache-control': 'no-store' }, body: '{"url":"https://api.test/v1/recordings/rec_secret"}' };
  const secret = { apiKey: 'svc_live_abcdefgh0123456789', idempotencyKey: 'k-1' };

  it('opens with the API key and idempotency key it was sealed with, and shows none of its text sealed', () => {
    const sealed = sealAnswer(answer, secret, 'key-id-1');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9+/]+=*$/);
    expect(sealed).not.toContain('rec_secret');
    expect(Buffer.from(sealed.slice(3), 'base64').toString('latin1')).not.toContain('rec_secret');
    expect(openAnswer(sealed, secret, 'key-id-1')).toEqual(answer);
  });

  it('does not open with another API key, idempotency key or row, nor when damaged', () => {
    const sealed = sealAnswer(answer, secret, 'key-id-1');
    expect(openAnswer(sealed, { ...secret, apiKey: 'svc_live_other' }, 'key-id-1')).toBeNull();
    expect(openAnswer(sealed, { ...secret, idempotencyKey: 'k-2' }, 'key-id-1')).toBeNull();
    expect(openAnswer(sealed, secret, 'key-id-2')).toBeNull();
    expect(openAnswer(`${sealed.slice(0, -6)}AAAA==`, secret, 'key-id-1')).toBeNull();
    expect(openAnswer('v2.xyz', secret, 'key-id-1')).toBeNull();
  });
});
