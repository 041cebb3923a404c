import { startAppWithFirmData, type AppWithFirmData, type FirmWithData } from '../support/firm-data';
import { waitFor } from '../support/receiver';
import { rawRequest } from '../support/raw-http';
import { collectLogLines, registerLiveToken, tokenRunsIn } from '../support/run-log';
import type { TestApp } from '../support/test-app';

/**
 * A mistyped recording link is still most of a live credential: from a
 * logged 42-character prefix the link was rebuilt in 57 requests. The access
 * log replaces the link route's declared credential parameter whatever it
 * holds, and a path that matches no route loses every long run, so no line
 * holds 20 consecutive characters of the live token.
 */
describe('near misses of a recording link never reach the log', () => {
  const { lines, stream: logStream } = collectLogLines();
  let fixture: AppWithFirmData;
  let t: TestApp;
  let firm: FirmWithData;

  beforeAll(async () => {
    fixture = await startAppWithFirmData({ env: { LOG_LEVEL: 'debug' }, logStream });
    ({ t, firm } = fixture);
    registerLiveToken(firm.linkToken);
  });
  afterAll(() => fixture.close());

  const mid = (token: string) => Math.floor(token.length / 2);
  const insertAt = (token: string, at: number, text: string) => token.slice(0, at) + text + token.slice(at);
  /** Each near miss as the target sent, built from the live token. */
  const NEAR_MISSES: Array<[string, (token: string) => string]> = [
    ['the last character dropped (42 characters)', (k) => `/v1/recordings/${k.slice(0, -1)}`],
    ['the first character dropped', (k) => `/v1/recordings/${k.slice(1)}`],
    ['one character inserted in the middle', (k) => `/v1/recordings/${insertAt(k, mid(k), 'x')}`],
    ['%2F inserted', (k) => `/v1/recordings/${insertAt(k, mid(k), '%2F')}`],
    ['%20 inserted', (k) => `/v1/recordings/${insertAt(k, mid(k), '%20')}`],
    ['a dot inserted', (k) => `/v1/recordings/${insertAt(k, mid(k), '.')}`],
    ['a slash inserted (no route)', (k) => `/v1/recordings/${insertAt(k, mid(k), '/')}`],
    ['a double slash before the token (no route)', (k) => `/v1/recordings//${k}`],
    ['a double slash after v1 (no route)', (k) => `/v1//recordings/${k}`],
    ['upper case path (no route)', (k) => `/V1/RECORDINGS/${k.slice(0, -1)}`],
    ['a trailing segment (no route)', (k) => `/v1/recordings/${k}/play`],
    ['a trailing slash', (k) => `/v1/recordings/${k.slice(0, -1)}/`],
    ['the token also in an unknown query parameter', (k) => `/v1/recordings/${k.slice(0, -1)}?t=${k.slice(0, -1)}`],
  ];

  it.each(NEAR_MISSES)('%s: answered, and no log line holds 20 characters of the token', async (_name, target) => {
    const from = lines.length;
    for (const method of ['GET', 'HEAD']) {
      const r = await rawRequest(t.baseUrl, { method, target: target(firm.linkToken), headers: [] });
      expect(r.status).toBeGreaterThanOrEqual(400);
    }
    await waitFor(() => lines.length >= from + 2, 'the access lines');
    expect(tokenRunsIn(lines.slice(from), [firm.linkToken])).toEqual([]);
  });

  it('the live link itself plays and is logged with its token replaced', async () => {
    const from = lines.length;
    const r = await rawRequest(t.baseUrl, { method: 'GET', target: `/v1/recordings/${firm.linkToken}`, headers: [] });
    expect(r.status).toBe(200);
    await waitFor(() => lines.slice(from).some((l) => l.includes('request completed')), 'the access line');
    const access = lines.slice(from).find((l) => l.includes('request completed'))!;
    expect(JSON.parse(access).req.url).toBe('/v1/recordings/[REDACTED]');
    expect(tokenRunsIn(lines.slice(from), [firm.linkToken])).toEqual([]);
  });
});
