import fc from 'fast-check';

/**
 * Text no client should send, as values (percent-encoded by the caller) and
 * as raw target bytes (sent exactly as written: latin1, one char per byte).
 */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', ' ', 'a\u0000b', '\u0000', 'evt_\u0000', '\u0007\u001b[31m', 'line\nbreak', 'cr\rlf', '\t', '\u007f', '\u2028'),
  fc.constantFrom('\ud800', 'a\udc00b', '\ufffe', '\uffff', '\u{10ffff}', 'ＡＢＣ', '١٢٣', 'İ', 'ß'),
  // Wrong types for numbers, booleans, dates, enums and ids.
  fc.constantFrom('-1', '0', '1.5', '1e3', '1e999', 'NaN', 'Infinity', '0x10', ' 1', '1 ', '99999999999999999999', '-0', '+1'),
  fc.constantFrom('true', 'null', 'undefined', '[]', '{}', '[1,2]', '{"a":1}', 'yesterday', '2026-02-30T00:00:00Z', '2026-13-01'),
  fc.constantFrom('../../etc/passwd', '%00', '%', "' OR 1=1 --", '<script>', '${jndi:x}', '*', '\\', 'evt_', 'evt_A', 'call_'),
  fc.integer({ min: 200, max: 7000 }).map((n) => 'a'.repeat(n)),
  fc.string({ unit: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

/** Bytes for a request target that are not valid percent-encoded UTF-8, or that split it oddly. */
export const rawTargetBytes: fc.Arbitrary<string> = fc.constantFrom(
  '%',
  '%zz',
  '%4',
  '%%',
  '%FF',
  '%C3%28',
  '%ED%A0%80',
  '%C0%AF',
  '%F8%88%80%80%80',
  '%E2%82',
  '\xff',
  '\xc3(',
  '\xe9',
  '%00',
  '%0A',
  '%0D%0A',
  '%2F',
  '%2e%2e',
  '..',
  '.',
  '+',
  '&&',
  '=',
  ';x=1',
);

/** Authorization header values a confused or hostile client sends. */
export const oddAuthorization = (key: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom('', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'svc_live_', 'Bearer svc_live_', 'Token abc', 'Bearer null'),
    fc.constantFrom(`bearer ${key}`, `BEARER ${key}`, `Bearer  ${key}`, `Bearer ${key} `, `Bearer ${key}x`, `Bearer ${key.slice(0, -1)}`),
    fc.constantFrom(`Bearer ${key}, Bearer ${key}`, `Bearer ${key.toUpperCase()}`, `Bearer "${key}"`, `Bearer ${key}\t`, key),
    fc.constantFrom(`Bearer svc_live_${'a'.repeat(5000)}`, 'Bearer svc_live_\xff\xfe', 'Bearer \xe9', `Bearer svc_live_${'A'.repeat(43)}`),
  );

/** Range header values beyond the valid ones. */
export const oddRange: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', 'bytes', 'bytes=', 'bytes=-', 'bytes=5-1', 'bytes=0-0,5-9', 'bytes=0-1,0-1,0-1', 'items=0-1', 'bytes=-0'),
  fc.constantFrom('bytes=99999999999999999999-', 'bytes=0-99999999999999999999', 'bytes=abc', 'bytes=1e3-', 'bytes= 0-1', 'Bytes=0-1'),
  fc.constantFrom('bytes=-99999999', 'bytes=999999999-', 'bytes=0x10-', 'bytes=0-1,', 'bytes=,0-1', `bytes=${'0-1,'.repeat(500)}0-1`),
  fc.tuple(fc.integer({ min: -5, max: 1e9 }), fc.integer({ min: -5, max: 1e9 })).map(([a, b]) => `bytes=${a}-${b}`),
);

/** Content types that are not the JSON the operations take. */
export const wrongContentType: fc.Arbitrary<string> = fc.constantFrom(
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/jsonx',
  'json',
  '',
  'application/problem+json',
  'application/merge-patch+json',
  '*/*',
);

/** Bodies that are not one JSON document. */
export const invalidJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('{', '}', '{"status":}', '{"status":"contacted"', "{'status':'contacted'}", '{"a":1}{"b":2}', 'nul', '"', '{"a":1,}'),
  fc.constantFrom('', ' ', '[]', 'null', '"contacted"', '123', 'true', '\ufeff{"status":"contacted"}', '{"status":"contacted"}\u0000'),
  fc.constantFrom('{"status":"\\ud800"}', '{"status":"\\u0000"}', '{"a":"\\x41"}', '{"a":01}', '{"a":NaN}', '{"a":1e999}'),
  fc.integer({ min: 1000, max: 20000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 1000, max: 20000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
  fc.string({ maxLength: 40 }),
);

/** Member names that a careless merge would turn into prototype pollution or a silent no-op. */
export const oddMemberName: fc.Arbitrary<string> = fc.constantFrom(
  // Every name on Object.prototype (__proto__, constructor, valueOf, isPrototypeOf, __defineGetter__, ...).
  ...Object.getOwnPropertyNames(Object.prototype),
  'prototype',
  '',
  'Status',
  'status ',
  'zzz',
  '\u0000',
  'a'.repeat(1000),
);
