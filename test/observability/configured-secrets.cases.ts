import { waitFor } from '../support/receiver';
import { collectLogLines } from '../support/run-log';
import { startTestApp, TEST_INTERNAL_TOKEN, TEST_SECRET_KEY, type TestApp } from '../support/test-app';

/** The secrets this app is configured with, none of them shaped like a credential the log's shape list knows. */
const METRICS_TOKEN = 'metrics-token-for-log-secrets-0042';
const SMTP_PASSWORD = 'smtp-password-0042';
const AWS_SECRET = 'aws-secret-access-key-0042/abc+def';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every character percent-encoded, as a client encoding a query value byte by byte would send it. */
const percentAll = (text: string) =>
  [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
/** Every %XX escape decoded (a secret must not survive in a line percent-encoded either). */
const decodeEscapes = (line: string) => line.replace(/%([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));

/**
 * The secrets the service is configured with (INTERNAL_API_TOKEN, METRICS_TOKEN, WEBHOOK_SECRET_KEY, the passwords
 * in DATABASE_URL and SMTP_URL, the S3 credentials) have no credential's shape, so the shape list (redact.ts) never
 * cut them: sent in a User-Agent, an x-request-id or a URL they were written verbatim, and one sent as the
 * x-request-id became the request's id in every line and error body. Each case reads the lines its own requests wrote.
 */
describe('no configured secret in any log line, wherever a request carries it', () => {
  const { lines, stream: logStream } = collectLogLines();
  let t: TestApp;
  let secrets: Array<[string, string]>;

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        LOG_LEVEL: 'debug',
        INTERNAL_API_TOKEN: TEST_INTERNAL_TOKEN,
        METRICS_TOKEN,
        SMTP_URL: `smtp://mailer:${SMTP_PASSWORD}@127.0.0.1:1`,
        AWS_SECRET_ACCESS_KEY: AWS_SECRET,
      },
      logStream,
    });
    secrets = [
      ['INTERNAL_API_TOKEN', TEST_INTERNAL_TOKEN],
      ['METRICS_TOKEN', METRICS_TOKEN],
      ['WEBHOOK_SECRET_KEY', TEST_SECRET_KEY],
      ['WEBHOOK_SECRET_KEY in hex', Buffer.from(TEST_SECRET_KEY, 'base64').toString('hex')],
      ['the SMTP_URL password', SMTP_PASSWORD],
      ['the DATABASE_URL password', decodeURIComponent(new URL(t.databaseUrl).password)],
      ['AWS_SECRET_ACCESS_KEY', AWS_SECRET],
    ];
  });
  afterAll(() => t.close());

  /** The lines written while `fn` ran, once the access line of its last request is there. */
  const linesDuring = async (fn: () => Promise<{ headers: Headers }>): Promise<string[]> => {
    const from = lines.length;
    const id = (await fn()).headers.get('x-request-id');
    await waitFor(() => lines.slice(from).some((l) => l.includes(`"${id}"`)), 'the access line');
    return lines.slice(from);
  };
  const holding = (written: string[], secret: string) => written.filter((l) => l.includes(secret) || decodeEscapes(l).includes(secret));

  it.each([
    ['in the User-Agent', (s: string) => t.get('/v1/account', { headers: { 'user-agent': `client/1.0 (token ${s})` } })],
    ['as the whole User-Agent', (s: string) => t.get('/v1/account', { headers: { 'user-agent': s } })],
    [
      'percent-encoded in the User-Agent',
      (s: string) => t.get('/v1/account', { headers: { 'user-agent': `client/1.0 ${percentAll(s)}` } }),
    ],
    ['in the query of a route', (s: string) => t.get(`/v1/health?probe=${encodeURIComponent(s)}`)],
    ['percent-encoded in the query of a route', (s: string) => t.get(`/v1/health?probe=${percentAll(s)}`)],
    ['in a path that names no route', (s: string) => t.get(`/v1/nowhere/${encodeURIComponent(s)}`)],
  ])('%s', async (_where, send) => {
    const found: string[] = [];
    for (const [name, secret] of secrets) {
      if (holding(await linesDuring(() => send(secret)), secret).length) found.push(name);
    }
    expect(found).toEqual([]);
  });

  it('an x-request-id holding one is replaced by a fresh id: in the answer, its body and every line', async () => {
    const kept: string[] = [];
    for (const [name, secret] of secrets) {
      for (const sent of [secret, `req-${secret}`]) {
        const from = lines.length;
        const r = await t.get('/v1/calls', { headers: { 'x-request-id': sent } });
        expect(r.status).toBe(401);
        const id = r.headers.get('x-request-id') ?? '';
        await waitFor(() => lines.slice(from).some((l) => l.includes(`"${id}"`)), 'the access line under the fresh id');
        if (!UUID.test(id) || r.body.request_id !== id || r.text.includes(secret) || holding(lines.slice(from), secret).length)
          kept.push(`${name} (${sent === secret ? 'as it is' : 'inside an id'})`);
      }
    }
    expect(kept).toEqual([]);
    // A plain id is still kept.
    expect((await t.get('/v1/calls', { headers: { 'x-request-id': 'support-case-44' } })).headers.get('x-request-id')).toBe(
      'support-case-44',
    );
  });
});
