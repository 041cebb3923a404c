import type { FastifyInstance } from 'fastify';
import type { RouteDeclaration } from '../../src/common/http/route-declaration';
import { registeredRoutes, type RegisteredRoute } from '../../src/common/http/route-table';
import { SCOPES } from '../../src/common/http/scopes';
import { mintLink, openConsole, type ConsoleBrowser } from '../support/console';
import { createFirm, type TestFirm } from '../support/factories';
import { answerBeforeBody, type Answer } from '../support/head-first';
import { insertKeyWithScopes } from '../support/keys';
import { servedDocument } from '../support/served-document';
import { startTestApp, TEST_INTERNAL_TOKEN, type TestApp } from '../support/test-app';

type Declared = RegisteredRoute & { declaration: RouteDeclaration };

/**
 * Walks every route the running app registered (Nest's controllers and the
 * routes the document library adds alike) and proves each has one
 * declaration and that each stage of a request reads it: access and scope
 * and the body before a byte of the body is read, path ids and the query
 * after it, the rate limit on keyed answers, the metrics label, and the
 * document. A route added tomorrow without a declaration fails the first test.
 */
describe('every route is declared once and every stage reads its declaration', () => {
  let t: TestApp;
  let firm: TestFirm;
  let allScopes: string;
  let allScopesTest: string;
  let consoleSession: ConsoleBrowser;
  let routes: readonly RegisteredRoute[];
  const declared = () => routes.filter((r): r is Declared => r.declaration !== undefined);

  beforeAll(async () => {
    t = await startTestApp({ env: { INTERNAL_API_TOKEN: TEST_INTERNAL_TOKEN } });
    firm = await createFirm(t.app);
    allScopes = (await insertKeyWithScopes(t, firm.orgId, [...SCOPES])).key;
    allScopesTest = (await insertKeyWithScopes(t, firm.orgId, [...SCOPES], { livemode: false })).key;
    consoleSession = await openConsole(t.baseUrl, (await mintLink(t.app, firm.orgId)).token);
    routes = registeredRoutes(t.app.getHttpAdapter().getInstance() as FastifyInstance);
  });
  afterAll(() => t.close());

  const EXAMPLES: Record<string, () => string> = { org_id: () => firm.orgId, '*': () => 'swagger-ui.css' };
  /** The route's path with each parameter filled: its documented example, else a plain id. */
  const pathOf = (r: Declared, override: Record<string, string> = {}) =>
    r.url.replace(/:(\w+)|\*/g, (m, name?: string) => {
      const key = name ?? m;
      return override[key] ?? EXAMPLES[key]?.() ?? r.declaration.params[key]?.doc?.example ?? 'c1';
    });
  /** The credential the route's declared access asks for. */
  const credentialFor = (d: RouteDeclaration): [string, string][] => {
    if (d.access.kind === 'key') return [['Authorization', `Bearer ${d.access.testOnly ? allScopesTest : allScopes}`]];
    if (d.access.kind === 'internal') return [['Authorization', `Bearer ${TEST_INTERNAL_TOKEN}`]];
    // The console's session cookie, its own origin (the Host the requests name) and the session's CSRF token.
    if (d.access.kind === 'console')
      return [
        ['Cookie', consoleSession.cookie],
        ['Origin', 'http://127.0.0.1'],
        ['X-CSRF-Token', consoleSession.csrf],
      ];
    return [];
  };
  const BIG_BODY: [string, string][] = [
    ['Content-Type', 'application/json'],
    ['Content-Length', String(8 * 1024 * 1024)],
  ];
  const label = (r: RegisteredRoute) => `${r.method} ${r.url}`;
  const withoutHead = () => declared().filter((r) => r.method !== 'HEAD');

  it('every registered route has a declaration, and declares each of its path parameters', () => {
    expect(routes.length).toBeGreaterThanOrEqual(25);
    expect(routes.filter((r) => !r.declaration).map(label)).toEqual([]);
    const undeclaredParams = declared().flatMap((r) =>
      [...r.url.matchAll(/:(\w+)/g)].filter(([, name]) => !(name in r.declaration.params)).map(([, name]) => `${label(r)} :${name}`),
    );
    expect(undeclaredParams).toEqual([]);
  });

  it('access and scope are checked before a byte of the body is read (401, 403), closing the connection', async () => {
    const wrong: string[] = [];
    for (const r of withoutHead()) {
      const { access } = r.declaration;
      if (access.kind !== 'key' && access.kind !== 'internal' && access.kind !== 'console') continue;
      const none = await answerBeforeBody(t.baseUrl, { method: r.method, target: pathOf(r), headers: BIG_BODY });
      if (none.status !== 401 || !none.closed) wrong.push(`${label(r)} without a credential: ${none.status}`);
      if (access.kind === 'console' && r.method !== 'GET') {
        // A console session is not enough to change anything from another origin.
        const elsewhere = await answerBeforeBody(t.baseUrl, {
          method: r.method,
          target: pathOf(r),
          headers: [['Cookie', consoleSession.cookie], ['Origin', 'https://elsewhere.example'], ...BIG_BODY],
        });
        if (elsewhere.status !== 403 || elsewhere.body.code !== 'csrf_refused' || !elsewhere.closed)
          wrong.push(`${label(r)} from another origin: ${elsewhere.status}`);
      }
      if (access.kind !== 'key') continue;
      if (access.testOnly) {
        // No scope to lack: a live key (every scope) is what a test-mode-only route refuses.
        const live = await answerBeforeBody(t.baseUrl, {
          method: r.method,
          target: pathOf(r),
          headers: [['Authorization', `Bearer ${allScopes}`], ...BIG_BODY],
        });
        if (live.status !== 403 || live.body.code !== 'test_mode_only' || !live.closed)
          wrong.push(`${label(r)} with a live key: ${live.status}`);
        continue;
      }
      const lacking = await insertKeyWithScopes(
        t,
        firm.orgId,
        SCOPES.filter((s) => s !== access.scope),
      );
      const scoped = await answerBeforeBody(t.baseUrl, {
        method: r.method,
        target: pathOf(r),
        headers: [['Authorization', `Bearer ${lacking.key}`], ...BIG_BODY],
      });
      if (scoped.status !== 403 || scoped.body.code !== 'insufficient_scope' || !scoped.closed)
        wrong.push(`${label(r)} without ${access.scope}: ${scoped.status}`);
    }
    expect(wrong).toEqual([]);
  });

  it("the body is refused or left unread as the route's body declaration says, before a byte of it is read", async () => {
    const wrong: string[] = [];
    for (const r of withoutHead()) {
      const { body } = r.declaration;
      if (body.kind === 'stream') continue; // the upload streams whatever comes: test/recordings*.e2e.spec.ts
      const headers = [...credentialFor(r.declaration), ...BIG_BODY];
      if (body.kind === 'json') headers[headers.length - 1] = ['Content-Length', String(body.maxBytes + 1)];
      const a = await answerBeforeBody(t.baseUrl, { method: r.method, target: pathOf(r), headers });
      // A body where none is taken: refused on a method that carries one, else left unread (answered as without it).
      const expected = body.kind === 'json' || r.method !== 'GET' ? 413 : undefined;
      if ((expected ? a.status !== expected : a.status === 413) || !a.closed) wrong.push(`${label(r)}: ${a.status} closed=${a.closed}`);
    }
    expect(wrong).toEqual([]);
  });

  it('a JSON body up to the declared limit is read (the limit is the route’s own)', async () => {
    const json = withoutHead().filter((r) => r.declaration.body.kind === 'json');
    expect(json.length).toBeGreaterThanOrEqual(2);
    for (const r of json) {
      const max = (r.declaration.body as { maxBytes: number }).maxBytes;
      const headers: [string, string][] = [
        ...credentialFor(r.declaration),
        ['Content-Type', 'application/json'],
        ['Content-Length', String(max)],
      ];
      await expect(answerBeforeBody(t.baseUrl, { method: r.method, target: pathOf(r), headers }, 1_000)).rejects.toThrow(
        /waits for the body/,
      );
    }
  });

  /** One request with a valid credential and a harmless body where the route reads one (none on a streamed upload). */
  const send = (r: Declared, path: string): Promise<Answer> => {
    const body = r.declaration.body.kind === 'json' ? '{}' : '';
    const headers: [string, string][] = [...credentialFor(r.declaration), ['Content-Length', String(body.length)]];
    if (body) headers.push(['Content-Type', 'application/json']);
    if (r.declaration.body.kind === 'stream') headers.push(['Content-Type', r.declaration.body.contentType]);
    return answerBeforeBody(t.baseUrl, { method: r.method, target: path, headers, body });
  };

  /**
   * Every parameter of every route, internal ones and the upload included: a NUL (which PostgreSQL refuses in text:
   * `PUT /internal/v1/orgs/{org}/calls/%00/recording` answered 500) or another control character is refused by the
   * declaration, as the declared rule says: 404 like an unknown id, or 400 naming the parameter.
   */
  it('a path parameter not of its declared form (a NUL, a control character) is refused by its declaration on every route', async () => {
    const wrong: string[] = [];
    for (const r of declared()) {
      for (const [name, rule] of Object.entries(r.declaration.params)) {
        for (const value of ['%00', 'a%00b', 'a%01b']) {
          const expected = rule.notFoundAs ? { status: 404, code: 'not_found' } : { status: 400, code: 'invalid_request', param: name };
          if (r.method === 'HEAD') {
            // No body to read the code from: the status says which rule answered (the route itself answers 405).
            const head = await fetch(`${t.baseUrl}${pathOf(r, { [name]: value })}`, { method: 'HEAD' });
            if (head.status !== expected.status) wrong.push(`${label(r)} :${name}=${value}: ${head.status}`);
            continue;
          }
          const a = await send(r, pathOf(r, { [name]: value }));
          const got = { status: a.status, code: a.body?.code, ...(rule.notFoundAs ? {} : { param: a.body?.param }) };
          if (JSON.stringify(got) !== JSON.stringify(expected)) wrong.push(`${label(r)} :${name}=${value}: ${a.status} ${a.body?.code}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('a route that declares no query (or a query DTO) refuses an unknown parameter, naming it; keyed answers carry the rate limit', async () => {
    const wrong: string[] = [];
    for (const r of withoutHead().filter((x) => x.declaration.body.kind !== 'stream')) {
      const a = await send(r, `${pathOf(r)}?zz_unknown=1`);
      const refused = a.status === 400 && a.body.param === 'zz_unknown';
      if (refused !== (r.declaration.query !== 'any')) wrong.push(`${label(r)} query ${String(r.declaration.query)}: ${a.status}`);
      if (a.headers.has('ratelimit') !== (r.declaration.access.kind === 'key'))
        wrong.push(`${label(r)}: RateLimit header ${a.headers.has('ratelimit')}`);
    }
    expect(wrong).toEqual([]);
  });

  it('the metrics label is the declared route template', async () => {
    const [r] = declared().filter((x) => x.url === '/v1/calls/:call_id');
    await send(r, pathOf(r));
    const text = (await t.get('/metrics')).text;
    expect(text).toContain('route="/v1/calls/:call_id"');
    const labels = new Set([...text.matchAll(/route="([^"]*)"/g)].map((m) => m[1]));
    const templates = new Set(declared().map((x) => x.declaration.template));
    expect([...labels].filter((l) => l !== 'unmatched' && !templates.has(l))).toEqual([]);
  });

  it('the document lists exactly the declared public operations, each with the security its access declares', async () => {
    const doc = await servedDocument(t);
    const byRoute = new Map(declared().map((r) => [`${r.method} ${r.url}`, r.declaration]));
    const wrong: string[] = [];
    for (const { label: opLabel, op } of doc.operations()) {
      const [method, path] = opLabel.split(' ');
      const d = byRoute.get(`${method} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
      if (!d) {
        wrong.push(`${opLabel}: no declared route`);
        continue;
      }
      const scope = d.access.kind === 'key' ? (d.access.scope ?? undefined) : undefined;
      const testOnly = d.access.kind === 'key' && d.access.testOnly === true;
      const security = d.access.kind === 'key' ? [{ api_key: [] }] : [];
      if (
        op['x-required-scope'] !== scope ||
        (op['x-test-mode-only'] === true) !== testOnly ||
        JSON.stringify(op.security ?? []) !== JSON.stringify(security)
      )
        wrong.push(`${opLabel}: security`);
    }
    const keyedRoutes = declared().filter((r) => r.declaration.access.kind === 'key');
    expect(keyedRoutes.length).toBe(doc.operations().filter((o) => o.op['x-required-scope'] || o.op['x-test-mode-only']).length);
    expect(wrong).toEqual([]);
  });
});
