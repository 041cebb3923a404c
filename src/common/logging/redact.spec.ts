import { redactUrl } from './redact';
import { acceptRequestId, parseTraceparent } from './trace-context';

const KEY = 'svc_live_' + 'aB3_-'.repeat(9);
const LINK_TOKEN = 'Zx9_-'.repeat(8) + 'abc';

describe('redactUrl', () => {
  it.each([
    [`/v1/calls?api_key=${KEY}`, '/v1/calls?api_key=[REDACTED]'],
    [`/v1/calls?limit=5&key=abc&token=t0`, '/v1/calls?limit=5&key=[REDACTED]&token=[REDACTED]'],
    ['/v1/calls?caller_number=%2B13125550123&limit=2', '/v1/calls?caller_number=[REDACTED]&limit=2'],
    ['/v1/leads?Caller_Number=3125550123', '/v1/leads?Caller_Number=[REDACTED]'],
    [`/v1//recordings/${LINK_TOKEN}`, '/v1//recordings/[REDACTED]'],
    [`/V1/RECORDINGS/${LINK_TOKEN}?x=1`, '/V1/RECORDINGS/[REDACTED]?x=1'],
    [`/anything/${KEY}/more`, '/anything/[REDACTED]/more'],
    ['/v1/webhooks?s=whsec_abc+/=def', '/v1/webhooks?s=[REDACTED]'],
    ['/v1/calls?limit=10&status=completed', '/v1/calls?limit=10&status=completed'],
    ['/v1/calls/0b9e0f0e-6d5b-4b8e-9a55-0e8c8b3f2a11', '/v1/calls/0b9e0f0e-6d5b-4b8e-9a55-0e8c8b3f2a11'],
  ])('%s -> %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('passes undefined through', () => {
    expect(redactUrl(undefined)).toBeUndefined();
  });
});

describe('request ids and traceparent', () => {
  it.each([['abc'], ['a.b:c-d_e'], ['x'.repeat(128)]])('keeps the plain id %s', (id) => expect(acceptRequestId(id)).toBe(id));
  it.each([[''], ['x'.repeat(129)], ['a b'], ['a\nb'], ['{"x":1}'], [undefined], [['a', 'b']]])('refuses %j', (id) =>
    expect(acceptRequestId(id as string)).toBeNull(),
  );

  const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
  const span = '00f067aa0ba902b7';
  it('reads a valid traceparent', () => {
    expect(parseTraceparent(`00-${trace}-${span}-01`)).toEqual({ trace_id: trace, span_id: span });
    expect(parseTraceparent(`01-${trace}-${span}-01-later`)).toEqual({ trace_id: trace, span_id: span });
  });
  it.each([
    [`ff-${trace}-${span}-01`],
    [`00-${'0'.repeat(32)}-${span}-01`],
    [`00-${trace}-${'0'.repeat(16)}-01`],
    [`00-${trace.toUpperCase()}-${span}-01`],
    [`00-${trace}-${span}-01-extra`],
    [`00-${trace}-${span}`],
    ['garbage'],
    [undefined],
  ])('refuses %j', (h) => expect(parseTraceparent(h)).toBeNull());
});
