import { PassThrough } from 'node:stream';
import { internalEnv } from './support/call-documents';
import { createFirmWithData, type FirmWithData } from './support/firm-data';
import { Receiver, waitFor } from './support/receiver';
import { tempDataDir } from './support/recordings';
import { secretsIn } from './support/run-log';
import { startTestApp, TEST_INTERNAL_TOKEN, type TestApp } from './support/test-app';

/**
 * Requests that put a secret where a careless log line would copy it: in the
 * URL, in a mistyped path, in headers. Each case checks the lines its own
 * requests produced (at debug, the most verbose level); the end-of-run search
 * (global-teardown.mjs) covers every other test too.
 */
describe('no secret in any log line, even when the request carries it in odd places', () => {
  const data = tempDataDir();
  const lines: string[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  let t: TestApp;
  let rx: Receiver;
  let firm: FirmWithData;

  beforeAll(async () => {
    rx = await Receiver.start();
    t = await startTestApp({
      env: { ...internalEnv, DATA_DIR: data.dir, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'debug' },
      logStream,
    });
    firm = await createFirmWithData(t, rx.url('/hook'));
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
    data.cleanup();
  });

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
    [
      'a webhook test delivery (signed with the whsec_ secret)',
      () => t.request('POST', `/v1/webhook-endpoints/${firm.endpointId}/test`, { key: firm.keys.read }),
    ],
  ])('%s', async (_name, send) => {
    const written = await linesDuring(send);
    expect(secretsIn(written)).toEqual([]);
  });
});
