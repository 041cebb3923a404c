import { SecretValues } from './secret-values';

const TOKEN = 'internal-token-0123456789';
const line = (value: unknown) => JSON.stringify({ msg: 'request completed', req: { user_agent: value } });

describe('SecretValues', () => {
  const secrets = new SecretValues([TOKEN, 'quo"te\\back-slash', 'short']);

  it.each([
    ['as sent', `curl/8 ${TOKEN}`],
    ['twice', `${TOKEN} and ${TOKEN}`],
    ['with one character percent-encoded', `curl/8 internal-%74oken-0123456789`],
    ['every character percent-encoded, lower-case hex', [...TOKEN].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')],
    ['holding characters JSON escapes', 'x quo"te\\back-slash y'],
  ])('cuts a secret out of a line: %s', (_name, value) => {
    const out = secrets.redactLine(line(value));
    expect(out).not.toContain(TOKEN);
    expect(out).not.toContain('0123456789');
    expect(out).not.toContain('back-slash');
    expect(out).toContain('[REDACTED]');
    expect(() => JSON.parse(out)).not.toThrow();
  });

  it('a secret shorter than 8 characters is cut only as a whole value, so ordinary words stay', () => {
    expect(JSON.parse(secrets.redactLine(line('short'))).req.user_agent).toBe('[REDACTED]');
    expect(JSON.parse(secrets.redactLine(line('a short text'))).req.user_agent).toBe('a short text');
  });

  it('leaves a line without secrets as it is', () => {
    expect(secrets.redactLine(line('curl/8 50% off'))).toBe(line('curl/8 50% off'));
  });

  it('says whether a text (an x-request-id) holds one', () => {
    expect(
      [TOKEN, `req-${TOKEN}`, 'internal-%74oken-0123456789', 'short', 'support-case-44', 'shortly'].map((t) => secrets.holdsOne(t)),
    ).toEqual([true, true, true, true, false, false]);
  });

  it('with no secrets is empty and changes nothing', () => {
    const none = new SecretValues([]);
    expect(none.empty).toBe(true);
    expect(none.redactLine(line(TOKEN))).toBe(line(TOKEN));
  });
});
