import { IDEMPOTENCY_KEY_PATTERN, idempotencyKeyHeaderCount, parseIdempotencyKey, storesAnswer } from './idempotency-key-header';

describe('Idempotency-Key values', () => {
  const documented = new RegExp(IDEMPOTENCY_KEY_PATTERN);

  it('takes 1 to 255 visible ASCII characters as they are, and the structured-field string of the same key', () => {
    for (const key of ['a', '8e03978e-40d5-43e8-bc93-6894a57f9324', 'x'.repeat(255), "!#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", 'a"b']) {
      expect(parseIdempotencyKey(key)).toBe(key);
      expect(documented.test(key)).toBe(true);
    }
    expect(parseIdempotencyKey('"8e03978e-40d5"')).toBe('8e03978e-40d5');
    expect(parseIdempotencyKey('"with space and \\" and \\\\"')).toBe('with space and " and \\');
    expect(parseIdempotencyKey(`"${'y'.repeat(255)}"`)).toBe('y'.repeat(255));
    expect(parseIdempotencyKey('  abc  ')).toBe('abc');
    for (const quoted of ['"8e03978e-40d5"', '"with space and \\" and \\\\"', `"${'y'.repeat(255)}"`])
      expect(documented.test(quoted)).toBe(true);
  });

  it('refuses what is neither form, an empty key, and one over 255 characters, as the document does', () => {
    const refused = [
      '',
      '""',
      'x'.repeat(256),
      `"${'y'.repeat(256)}"`,
      'two words',
      'caf\u00e9',
      'tab\there',
      '"unterminated',
      '"a" "b"',
      '"a", "b"',
      '"bad \\n escape"',
      '"nul \u0000"',
      '"after"x',
    ];
    for (const value of refused) {
      expect([value, parseIdempotencyKey(value)]).toEqual([value, null]);
      if (value.trim() === value) expect([value, documented.test(value)]).toEqual([value, false]);
    }
  });

  it('counts repeated headers in the raw list (Node joins them into one value)', () => {
    expect(idempotencyKeyHeaderCount(['Idempotency-Key', 'a', 'idempotency-key', 'b', 'Host', 'x'])).toBe(2);
    expect(idempotencyKeyHeaderCount(['Host', 'x'])).toBe(0);
  });

  it('stores what the operation answered, never what says it was not run', () => {
    expect([200, 201, 202, 404, 409, 410].every(storesAnswer)).toBe(true);
    expect([400, 401, 403, 408, 413, 415, 429, 500, 503].some(storesAnswer)).toBe(false);
  });
});
