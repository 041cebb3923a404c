import { SCOPES } from '../../src/common/http/scopes';
import { createTestDatabase } from '../support/database';
import { createFirm, type TestFirm } from '../support/factories';
import { insertKeyWithScopes } from '../support/keys';
import { fixture, insertCall, tempDataDir, upload } from '../support/recordings';
import { TcpProxy } from '../support/tcp-proxy';
import { startTestApp, TEST_INTERNAL_TOKEN, type HttpResult, type RequestOptions, type TestApp } from '../support/test-app';

/**
 * The statuses shared code answers before any handler runs: 401 (no key),
 * 413 and 415 (the body parser), 429 (the rate limiter) and 503 (the
 * database unreachable), each exercised on every operation that documents
 * it, generated from the served document: an operation added tomorrow is
 * covered the day it is documented, and the conformance report counts each
 * (operation, status) on its own. 403 on every keyed operation:
 * test/access/scope-matrix.cases.ts.
 */
interface Operation {
  method: string;
  template: string;
  op: Record<string, any>;
}

const HOUR = 3_600_000;
/**
 * Operations whose 503 only a process shutting down gives (liveness stays 200 with the database away, and HEAD on
 * the recording routes needs no database): test/outage.e2e.spec.ts exercises them on a draining process.
 */
const DRAINING_ONLY_503 = ['getHealth', 'headRecording', 'headCallRecording'];
/** Over every route's declared body limit (the largest: the internal call document's 8 MiB). */
const OVERSIZED = Buffer.alloc(8 * 1024 * 1024 + 1, 0x20);

describe('shared statuses on every operation that documents them', () => {
  const data = tempDataDir();
  let proxy: TcpProxy;
  let t: TestApp;
  let firm: TestFirm;
  let linkToken: string;
  let testKey: string;
  let operations: Operation[];

  beforeAll(async () => {
    // The app reaches its database through a proxy the 503 test cuts.
    const direct = new URL(await createTestDatabase());
    proxy = new TcpProxy(direct.hostname, Number(direct.port));
    const viaProxy = new URL(direct.toString());
    viaProxy.port = String(await proxy.start());
    t = await startTestApp({
      databaseUrl: viaProxy.toString(),
      env: { DATA_DIR: data.dir, INTERNAL_API_TOKEN: TEST_INTERNAL_TOKEN, RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '2' },
    });
    firm = await createFirm(t.app);
    testKey = (await insertKeyWithScopes(t, firm.orgId, [...SCOPES], { livemode: false })).key;
    const callId = `call_statuses_${process.pid}`;
    await insertCall(t, firm.orgId, callId);
    expect((await upload(t, firm.orgId, callId, fixture('injury-caller.ogg'))).status).toBeLessThan(300);
    const link = await t.request('POST', `/v1/calls/${callId}/recording-link`, { key: firm.keys.read });
    expect(link.status).toBe(201);
    linkToken = new URL(link.body.url as string).pathname.split('/').pop()!;
    const doc = (await t.get('/v1/openapi.json')).body;
    operations = Object.entries<Record<string, any>>(doc.paths).flatMap(([template, item]) =>
      Object.entries<Record<string, any>>(item)
        .filter(([, op]) => op?.responses)
        .map(([method, op]) => ({ method: method.toUpperCase(), template, op })),
    );
  });
  afterAll(async () => {
    await proxy.cut().catch(() => undefined);
    await t.close();
    data.cleanup();
  });

  const documenting = (status: number) =>
    operations.filter((o) => String(status) in o.op.responses && !(status === 503 && DRAINING_ONLY_503.includes(o.op.operationId)));
  const name = (o: Operation) => `${o.method} ${o.template}`;
  const keyed = (o: Operation) => (o.op.security ?? []).some((req: object) => Object.keys(req).length > 0);
  /** The test helpers take only a test key: a live one is refused (403 test_mode_only) before any of these statuses. */
  const testModeOnly = (o: Operation) => o.op['x-test-mode-only'] === true;

  /** The operation's path with each parameter filled from the document's example (the link token: a real one). */
  const pathOf = (o: Operation): string =>
    o.template.replace(/\{(\w+)\}/g, (_m, param: string) => {
      if (param === 'token') return linkToken;
      const p = (o.op.parameters ?? []).find((x: any) => x.in === 'path' && x.name === param);
      const example = p?.example ?? p?.schema?.example;
      if (typeof example !== 'string') throw new Error(`no example for path parameter ${param} of ${name(o)}`);
      return encodeURIComponent(example);
    });

  const isShed = (r: HttpResult) => r.status === 503 && r.headers.get('retry-after') !== null;
  /** Sends `opts` to every operation documenting `status`; returns what each that answered otherwise got. */
  const sendEach = async (status: number, opts: (o: Operation) => RequestOptions, code: string): Promise<string[]> => {
    const ops = documenting(status);
    expect(ops.length).toBeGreaterThan(0);
    const wrong: string[] = [];
    for (const o of ops) {
      // request() checks each answer against the document (status, type, body, documented headers) and records it.
      let r: HttpResult = await t.request(o.method, pathOf(o), opts(o));
      // A shed answer (503 with Retry-After) is asked again, as a client does: at load 13 (two suites at once) a new
      // pooled connection once took over its 3 s connect bound, and the key check before the body answered 503. It
      // is not the refusal under test; a 503 that stays fails below.
      for (let again = 0; again < 3 && status !== 503 && isShed(r); again++) r = await t.request(o.method, pathOf(o), opts(o));
      // A HEAD answer has no body to name its code.
      const codeSeen = o.method === 'HEAD' ? code : r.body?.code;
      if (r.status !== status || codeSeen !== code) wrong.push(`${name(o)}: ${r.status} ${r.text.slice(0, 160)}`);
    }
    return wrong;
  };
  /** A body only where the operation takes one: a route that takes none refuses any (413). */
  const jsonBody = (o: Operation) => (o.op.requestBody ? { body: {} } : {});

  it('401 unauthorized without a key, on every operation that needs one (and those alone document it)', async () => {
    expect(documenting(401).map(name)).toEqual(operations.filter(keyed).map(name));
    expect(await sendEach(401, () => ({}), 'unauthorized')).toEqual([]);
  });

  it('413 payload_too_large for a body over the limit, on every operation documenting it', async () => {
    const opts = (o: Operation) => ({
      key: testModeOnly(o) ? testKey : firm.keys['read-update-leads'],
      rawBody: OVERSIZED,
      headers: { 'content-type': 'application/json' },
    });
    expect(await sendEach(413, opts, 'payload_too_large')).toEqual([]);
  });

  it('415 unsupported_media_type for a body of another type, on every operation documenting it', async () => {
    const opts = (o: Operation) => ({
      key: testModeOnly(o) ? testKey : firm.keys['read-update-leads'],
      rawBody: '<lead status="contacted"/>',
      headers: { 'content-type': 'application/xml' },
    });
    expect(await sendEach(415, opts, 'unsupported_media_type')).toEqual([]);
  });

  it('429 rate_limited once the key has spent its burst, on every operation documenting it', async () => {
    const { key } = await insertKeyWithScopes(t, firm.orgId, [...SCOPES]);
    const test = await insertKeyWithScopes(t, firm.orgId, [...SCOPES], { livemode: false });
    // The buckets are stamped an hour ahead, so no token comes back while the test runs, however slow the machine.
    t.clock.advance(HOUR);
    try {
      for (const k of [key, test.key]) for (let i = 0; i < 5 && (await t.get('/v1/account', { key: k })).status !== 429; i++);
    } finally {
      t.clock.reset();
    }
    expect(await sendEach(429, (o) => ({ key: testModeOnly(o) ? test.key : key, ...jsonBody(o) }), 'rate_limited')).toEqual([]);
  });

  it('503 service_unavailable with Retry-After while the database is unreachable, on every operation documenting it', async () => {
    const { key } = await insertKeyWithScopes(t, firm.orgId, [...SCOPES]);
    await proxy.cut();
    try {
      const keyFor = (o: Operation) => (keyed(o) ? { key: testModeOnly(o) ? testKey : key } : {});
      expect(await sendEach(503, (o) => ({ ...keyFor(o), ...jsonBody(o) }), 'service_unavailable')).toEqual([]);
    } finally {
      // The other tests of this file run in any order (--randomize): they need the database back.
      await proxy.restore();
    }
  });
});
