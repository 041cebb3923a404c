import { startAppWithFirmData, type AppWithFirmData, type FirmWithData } from '../support/firm-data';
import { waitFor } from '../support/receiver';
import { collectLogLines, secretsIn } from '../support/run-log';
import { TEST_INTERNAL_TOKEN, type TestApp } from '../support/test-app';

const hex = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
/**
 * The first letter or digit from the middle on percent-encoded (`A` as `%41`): the router decodes it, and neither half is
 * long enough for a shape match on the raw URL.
 */
const encodeOne = (token: string) => {
  const middle = Math.floor(token.length / 2);
  const at = token.slice(middle).search(/[A-Za-z0-9]/) + middle;
  return token.slice(0, at) + hex(token[at]) + token.slice(at + 1);
};
/** Every `_` and `-` percent-encoded (`%5F`, `%2D`). */
const encodeMarks = (text: string) => text.replace(/[_-]/g, hex);
/** A webhook signing secret's shape (none the app issued: a header must not be logged whatever it holds). */
const SIGNING_SECRET = `whsec_${Buffer.alloc(24, 5).toString('base64')}`;
/** Every %XX escape decoded (the log line is JSON text; no escape it holds is left for a secret to hide behind). */
const decodeEscapes = (line: string) => line.replace(/%([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));

/**
 * Requests that put a secret where a careless log line would copy it: in the
 * URL, in a mistyped path, in headers. Each case checks the lines its own
 * requests produced (at debug, the most verbose level); the end-of-run search
 * (global-teardown.mjs) covers every other test too.
 */
describe('no secret in any log line, even when the request carries it in odd places', () => {
  const { lines, stream: logStream } = collectLogLines();
  let fixture: AppWithFirmData;
  let t: TestApp;
  let firm: FirmWithData;

  beforeAll(async () => {
    fixture = await startAppWithFirmData({ env: { LOG_LEVEL: 'debug' }, logStream });
    ({ t, firm } = fixture);
  });
  afterAll(() => fixture.close());

  /** The log lines written while `fn` ran (the request's access line is written by the time its answer arrives). */
  const linesDuring = async (fn: () => Promise<unknown>): Promise<string[]> => {
    const from = lines.length;
    await fn();
    await waitFor(() => lines.length > from, 'a log line');
    return lines.slice(from);
  };

  it.each([
    ['an API key in the query string (?api_key=)', () => t.get('/v1/calls', { key: firm.keys.read, query: { api_key: firm.keys.read } })],
    ['a recording link token behind a double slash', () => t.get(`/v1//recordings/${firm.linkToken}`)],
    ['a recording link token in a mixed-case path', () => t.get(`/V1/Recordings/${firm.linkToken}`)],
    ['a caller number filter on calls', () => t.get('/v1/calls', { key: firm.keys.read, query: { caller_number: '+13125550123' } })],
    ['a caller number filter on leads', () => t.get('/v1/leads', { key: firm.keys.read, query: { caller_number: '(312) 555-0188' } })],
    ['a wrong key that shares a real prefix', () => t.get('/v1/account', { key: firm.keys.read.slice(0, -3) + 'xyz' })],
    ['a malformed Authorization header', () => t.get('/v1/account', { headers: { authorization: `Basic ${firm.keys.read}` } })],
    ['the internal token on a public route', () => t.get('/v1/account', { headers: { authorization: `Bearer ${TEST_INTERNAL_TOKEN}` } })],
    ['a recording link token with a character percent-encoded (%41 style)', () => t.get(`/v1/recordings/${encodeOne(firm.linkToken)}`)],
    ['a recording link token with every _ and - percent-encoded', () => t.get(`/v1/recordings/${encodeMarks(firm.linkToken)}`)],
    [
      'a real API key percent-encoded in an unknown parameter',
      () => t.get(`/v1/calls?x=${encodeMarks(firm.keys.read)}`, { key: firm.keys.read }),
    ],
    [
      'a real API key percent-encoded as a parameter name',
      () => t.get(`/v1/calls?${encodeMarks(firm.keys.read)}=1`, { key: firm.keys.read }),
    ],
    [
      'an API key, a signing secret and a link token in the User-Agent',
      () =>
        t.get('/v1/account', {
          key: firm.keys.read,
          headers: { 'user-agent': `client/1.0 key=${firm.keys.read} secret=${SIGNING_SECRET} link=${firm.linkToken}` },
        }),
    ],
    [
      'a Bearer credential and a percent-encoded key in the User-Agent',
      () =>
        t.get('/v1/account', {
          key: firm.keys.read,
          headers: { 'user-agent': `proxy/2 (Bearer ${firm.keys.read}) fwd=${encodeMarks(firm.keys.read)}` },
        }),
    ],
    [
      'a real API key as the x-request-id',
      () => t.get('/v1/account', { key: firm.keys.read, headers: { 'x-request-id': firm.keys.read } }),
    ],
    ['a link token as the x-request-id of a refused request', () => t.get('/v1/calls', { headers: { 'x-request-id': firm.linkToken } })],
    [
      'a webhook test delivery (signed with the whsec_ secret)',
      () => t.request('POST', `/v1/webhook-endpoints/${firm.endpointId}/test`, { key: firm.keys.read }),
    ],
  ])('%s', async (_name, send) => {
    const written = await linesDuring(send);
    expect(secretsIn(written)).toEqual([]);
    // Percent-encoded, a secret has none of the shapes above: the decoded lines must not hold it either.
    const decoded = written.map(decodeEscapes);
    expect(secretsIn(decoded)).toEqual([]);
    for (const secret of [firm.linkToken, firm.keys.read, SIGNING_SECRET])
      expect(decoded.filter((line) => line.includes(secret))).toEqual([]);
  });

  it('an x-request-id shaped like a credential is not echoed: the answer, its body and its log lines carry a fresh id', async () => {
    for (const sent of [firm.keys.read, firm.keys.read.replace('svc_live_', 'svc_test_'), firm.linkToken, SIGNING_SECRET]) {
      const r = await t.get('/v1/calls', { headers: { 'x-request-id': sent } });
      expect(r.status).toBe(401);
      const id = r.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(r.body.request_id).toBe(id);
      expect(r.text).not.toContain(sent);
      await waitFor(() => lines.some((l) => l.includes(`"${id}"`)), 'the access line under the fresh id');
    }
    // A plain id is still kept.
    expect((await t.get('/v1/calls', { headers: { 'x-request-id': 'support-case-42' } })).headers.get('x-request-id')).toBe(
      'support-case-42',
    );
  });

  it('a percent-encoded link token still plays (so the log line above is about a working credential)', async () => {
    expect((await t.get(`/v1/recordings/${encodeOne(firm.linkToken)}`)).status).toBe(200);
    expect((await t.get(`/v1/recordings/${encodeMarks(firm.linkToken)}`)).status).toBe(200);
  });
});
