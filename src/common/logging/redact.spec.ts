import { decodeTolerantly, redactDeclaredUrl, redactHeaderValue, redactUnmatchedUrl, redactUrl } from './redact';
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
    // A test key's start too, even when what follows is too short to be a key body on its own.
    ['/anything/svc_test_aB3-x/more', '/anything/[REDACTED]/more'],
    [`/anything/${KEY.replace('svc_live_', 'svc_test_')}`, '/anything/[REDACTED]'],
    ['/v1/webhooks?s=whsec_abc+/=def', '/v1/webhooks?s=[REDACTED]'],
    ['/v1/calls?limit=10&status=completed', '/v1/calls?limit=10&status=completed'],
    ['/v1/calls/0b9e0f0e-6d5b-4b8e-9a55-0e8c8b3f2a11', '/v1/calls/0b9e0f0e-6d5b-4b8e-9a55-0e8c8b3f2a11'],
    // Percent-encoded credentials: the router decodes them, so the redaction matches the decoded text.
    [`/v1/recordings/${LINK_TOKEN.replace('_', '%5F')}`, '/v1/recordings/[REDACTED]'],
    [`/v1/recordings/${LINK_TOKEN.replace('Z', '%5A').replace('9', '%39')}?x=1`, '/v1/recordings/[REDACTED]?x=1'],
    [`/v1/recordings/${LINK_TOKEN.replace(/x/g, '%78')}`, '/v1/recordings/[REDACTED]'],
    [`/v1/calls?x=${KEY.replace(/_/g, '%5F')}`, '/v1/calls?x=[REDACTED]'],
    [`/v1/calls?x=${KEY.replace('svc_live_', 'svc%5flive%5f')}&limit=2`, '/v1/calls?x=[REDACTED]&limit=2'],
    [`/v1/calls?x=pre%20${KEY.replace(/_/g, '%5F')}`, '/v1/calls?x=pre%20[REDACTED]'],
    [`/v1/calls?${KEY.replace(/_/g, '%5F')}`, '/v1/calls?[REDACTED]'],
    [`/v1/calls?${KEY.replace(/_/g, '%5F')}=1`, '/v1/calls?[REDACTED]=1'],
    ['/v1/calls?api%5Fkey=abc&caller%5Fnumber=%2B1312', '/v1/calls?api%5Fkey=[REDACTED]&caller%5Fnumber=[REDACTED]'],
    ['/v1/calls?api_key%FF=abc', '/v1/calls?api_key%FF=abc'],
    ['/v1/calls?api%5fkey=%E9%zz', '/v1/calls?api%5fkey=[REDACTED]'],
    // Bad encoding never throws and never hides a shape next to it.
    [`/v1/%E9%zz%/${KEY.replace('_', '%5F')}%`, '/v1/%E9%zz%/[REDACTED]%25'],
    ['/v1/calls/%E9%zz%?q=%%%', '/v1/calls/%E9%zz%?q=%%%'],
  ])('%s -> %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('passes undefined through', () => {
    expect(redactUrl(undefined)).toBeUndefined();
  });

  it.each([
    ['%', '%'],
    ['a%zzb', 'a%zzb'],
    ['%5F%5f', '__'],
    ['caf%E9', 'caf\uFFFD'],
    ['%ED%A0%80', '\uFFFD\uFFFD\uFFFD'],
    ['%F0%9F%98%80%F0%9F', '\u{1F600}\uFFFD'],
    ['%E2%82%AC+', '\u20AC+'],
  ])('decodes %j tolerantly to %j', (text, decoded) => {
    expect(decodeTolerantly(text)).toBe(decoded);
  });
});

describe('request ids and traceparent', () => {
  it.each([
    ['abc'],
    ['a.b:c-d_e'],
    ['x.'.repeat(64)],
    ['0b9e0f0e-6d5b-4b8e-9a55-0e8c8b3f2a11'],
    ['4bf92f3577b34da6a3ce929d0e0e4736'],
    ['x'.repeat(42)],
  ])('keeps the plain id %s', (id) => expect(acceptRequestId(id)).toBe(id));
  it.each([[''], ['x'.repeat(129)], ['a b'], ['a\nb'], ['{"x":1}'], [undefined], [['a', 'b']]])('refuses %j', (id) =>
    expect(acceptRequestId(id as string)).toBeNull(),
  );
  // An id is written into every log line, error body and span of its request: one shaped like a credential is not kept.
  it.each([
    ['an API key', KEY],
    ['a test key', KEY.replace('svc_live_', 'svc_test_')],
    ['a key after a prefix', `req-${KEY}`],
    ['a key start alone', 'trace.svc_live_x'],
    ['a webhook secret', 'whsec_c2VjcmV0c2VjcmV0'],
    ['a link token', LINK_TOKEN],
    ['a run as long as a link token', 'x'.repeat(43)],
  ])('refuses %s', (_name, id) => expect(acceptRequestId(id)).toBeNull());

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

describe('redactUnmatchedUrl: a path no route matched loses every run of 16 or more token characters', () => {
  it.each([
    [`/v1//recordings/${LINK_TOKEN.slice(0, -1)}`, '/v1//recordings/[REDACTED]'],
    [`/v1/recordings/${LINK_TOKEN.slice(0, 21)}/${LINK_TOKEN.slice(21)}`, '/v1/recordings/[REDACTED]/[REDACTED]'],
    [`/nope?t=${LINK_TOKEN.slice(0, 30)}`, '/nope?t=[REDACTED]'],
    ['/v1/callz/call_short', '/v1/callz/call_short'],
  ])('%s', (url, logged) => {
    expect(redactUnmatchedUrl(url)).toBe(logged);
  });
});

describe('redactDeclaredUrl: a route with a credential parameter is logged from its template', () => {
  const route = (params: Record<string, string>) => ({
    template: '/v1/recordings/:token',
    params,
    credentialParams: ['token'],
    credentialQuery: [],
  });
  it.each([
    [`/v1/recordings/${LINK_TOKEN.slice(0, -1)}`, { token: LINK_TOKEN.slice(0, -1) }, '/v1/recordings/[REDACTED]'],
    [`/v1/recordings/ab%2Fcd/`, { token: 'ab/cd' }, '/v1/recordings/[REDACTED]'],
    [`/v1/recordings/x?t=${LINK_TOKEN.slice(1)}&limit=2`, { token: 'x' }, '/v1/recordings/[REDACTED]?t=[REDACTED]&limit=2'],
  ])('%s', (url, params, logged) => {
    expect(redactDeclaredUrl(url, route(params))).toBe(logged);
  });

  it('other parameters are written as the router decoded them, credential shapes still replaced', () => {
    const r = {
      template: '/v1/calls/:call_id/x/:token',
      params: { call_id: 'call 1', token: 't' },
      credentialParams: ['token'],
      credentialQuery: [],
    };
    expect(redactDeclaredUrl('/v1/calls/call%201/x/t', r)).toBe('/v1/calls/call%201/x/[REDACTED]');
  });
});

describe('redactHeaderValue: a logged header loses every credential shape', () => {
  it.each([
    [`client/1.0 key=${KEY}`, 'client/1.0 key=[REDACTED]'],
    [`client/1.0 (${KEY.replace('svc_live_', 'svc_test_')})`, 'client/1.0 ([REDACTED])'],
    ['hooks/2 secret=whsec_c2VjcmV0c2VjcmV0+/= ok', 'hooks/2 secret=[REDACTED] ok'],
    [`player/3 ${LINK_TOKEN}`, 'player/3 [REDACTED]'],
    ['proxy/1 Bearer abc.def-ghi~jkl, next', 'proxy/1 [REDACTED], next'],
    ['proxy/1 bearer   abc', 'proxy/1 [REDACTED]'],
    [`client/1.0 key=${KEY.replace(/_/g, '%5F')}`, 'client/1.0 key=[REDACTED]'],
    ['Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0', 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0'],
    ['curl/8.5.0 100%', 'curl/8.5.0 100%'],
  ])('%s -> %s', (value, logged) => expect(redactHeaderValue(value)).toBe(logged));

  it('joins repeated values and passes undefined through', () => {
    expect(redactHeaderValue(['a/1', `b/2 ${KEY}`])).toBe('a/1, b/2 [REDACTED]');
    expect(redactHeaderValue(undefined)).toBeUndefined();
  });
});
