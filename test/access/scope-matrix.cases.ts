import { ApiKeyService } from '../../src/auth';
import { PERMISSION_SETS, PERMISSION_SET_NAMES, SCOPES } from '../../src/common/http/scopes';
import { startAppWithFirmData, type AppWithFirmData, type FirmWithData } from '../support/firm-data';
import { insertKeyWithScopes } from '../support/keys';
import { type HttpResult, type TestApp } from '../support/test-app';

interface Operation {
  method: string;
  path: string;
  scope: string;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * The operation's effective requirement (its own, else the document's) names a scheme: it needs a credential.
 * An empty `{}` alternative makes the credential optional.
 */
const needsCredential = (op: any, doc: any): boolean => {
  const security: unknown = op.security ?? doc.security;
  return Array.isArray(security) && security.length > 0 && security.every((req: object) => Object.keys(req).length > 0);
};

/** A valid body for the operations that take one, so only the scope decides. */
const BODIES: Record<string, unknown> = { 'patch /v1/leads/{lead_id}': { status: 'contacted' } };

/**
 * The full matrix of keys by operations, generated from the served document's
 * security requirements (x-required-scope): a new route is covered the day it
 * is documented. Keys: the four permission sets, and one key per single scope.
 */
describe('scopes: every key gets 403 insufficient_scope on every operation outside its scopes', () => {
  let fixture: AppWithFirmData;
  let t: TestApp;
  let firm: FirmWithData;
  let operations: Operation[];
  let doc: any;
  const keys: { name: string; key: string; scopes: readonly string[] }[] = [];

  beforeAll(async () => {
    fixture = await startAppWithFirmData();
    ({ t, firm } = fixture);
    doc = (await t.get('/v1/openapi.json')).body;
    operations = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      Object.entries<any>(item)
        .filter(([, op]) => op['x-required-scope'])
        .map(([method, op]) => ({ method: method.toUpperCase(), path, scope: op['x-required-scope'] as string })),
    );
    for (const set of PERMISSION_SET_NAMES) keys.push({ name: `set ${set}`, key: firm.keys[set], scopes: PERMISSION_SETS[set].scopes });
    for (const scope of SCOPES)
      keys.push({ name: `only ${scope}`, key: (await insertKeyWithScopes(t, firm.orgId, [scope])).key, scopes: [scope] });
  });
  afterAll(() => fixture.close());

  const send = (op: Operation, key: string): Promise<HttpResult> => {
    const values: Record<string, string> = {
      call_id: firm.callIds[0],
      lead_id: firm.leadId,
      event_id: firm.eventId,
      endpoint_id: firm.endpointId,
      delivery_id: firm.deliveryId,
    };
    const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
      if (!values[name]) throw new Error(`no test value for path parameter ${name} of ${op.method} ${op.path}`);
      return encodeURIComponent(values[name]);
    });
    return t.request(op.method, path, { key, body: BODIES[`${op.method.toLowerCase()} ${op.path}`] });
  };

  it('the document names a scope on every operation that needs a key (so the matrix below is complete)', () => {
    expect(operations.length).toBeGreaterThanOrEqual(14);
    for (const op of operations) expect(SCOPES).toContain(op.scope);
  });

  it('an operation carries x-required-scope or x-test-mode-only (one of them) exactly when its security requirement is non-empty', () => {
    // The matrix takes its operations from x-required-scope: a keyed operation without it would be skipped silently.
    const scoped = (op: any) => typeof op['x-required-scope'] === 'string' && op['x-required-scope'] !== '';
    const testOnly = (op: any) => op['x-test-mode-only'] === true;
    const mismatched = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      Object.entries<any>(item)
        .filter(([method]) => HTTP_METHODS.includes(method))
        .filter(([, op]) => needsCredential(op, doc) !== (scoped(op) || testOnly(op)) || (scoped(op) && testOnly(op)))
        .map(
          ([method, op]) =>
            `${method.toUpperCase()} ${path}: security ${JSON.stringify(op.security)}, x-required-scope ${op['x-required-scope']}`,
        ),
    );
    expect(mismatched).toEqual([]);
  });

  it('every key, every operation: 403 insufficient_scope naming the scope exactly when the key lacks it', async () => {
    const wrong: string[] = [];
    for (const k of keys) {
      for (const op of operations) {
        const r = await send(op, k.key);
        const holds = k.scopes.includes(op.scope);
        const denied = r.status === 403 && r.body?.code === 'insufficient_scope' && r.body?.required_scope === op.scope;
        // With the scope, the request is judged on its merits: never 401/403.
        const allowed = r.status !== 401 && r.status !== 403 && r.status < 500;
        if (holds ? !allowed : !denied) wrong.push(`${k.name} ${op.method} ${op.path}: ${r.status} ${r.text.slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('test-mode-only operations: every live key gets 403 test_mode_only, a test key of any permission set is judged on the merits', async () => {
    const testOnly = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      Object.entries<any>(item)
        .filter(([, op]) => op['x-test-mode-only'] === true)
        .map(([method]) => ({ method: method.toUpperCase(), path, scope: '' })),
    );
    expect(testOnly.length).toBeGreaterThanOrEqual(2);
    const wrong: string[] = [];
    for (const k of keys) {
      for (const op of testOnly) {
        const r = await send(op, k.key);
        if (r.status !== 403 || r.body?.code !== 'test_mode_only') wrong.push(`${k.name} ${op.method} ${op.path}: ${r.status}`);
      }
    }
    for (const set of PERMISSION_SET_NAMES) {
      const { key } = await t.app.get(ApiKeyService).create({ orgId: firm.orgId, name: `test ${set}`, set, livemode: false });
      for (const op of testOnly) {
        const r = await send(op, key);
        if (r.status === 401 || r.status === 403 || r.status >= 500) wrong.push(`test ${set} ${op.method} ${op.path}: ${r.status}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
