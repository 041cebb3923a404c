import { fullCallDocument, ingestOk, internalEnv, nextCallId, putCall } from '../support/call-documents';
import { createFirm, type TestFirm } from '../support/factories';
import { sharedTestApp } from '../support/shared-app';
import { type HttpResult, type TestApp } from '../support/test-app';

/**
 * Every name on Object.prototype (constructor, valueOf, __proto__, ...):
 * class-transformer silently drops such members before the whitelist sees
 * them, so they used to pass where `?foo=x` is refused. Each is an unknown
 * member like any other, at every level a DTO declares.
 */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);
const LISTS = ['/v1/calls', '/v1/leads', '/v1/events', '/v1/webhook-deliveries', '/v1/webhook-endpoints'];
const BODY_TAKES = 'the body takes status, external_id, status_reason and expected_status';

describe('members named like Object.prototype properties are unknown members', () => {
  let t: TestApp;
  let firm: TestFirm;

  beforeAll(async () => {
    t = await sharedTestApp(internalEnv);
    firm = await createFirm(t.app);
  });

  const expectRefused = (r: HttpResult, param: string, detail: string) => {
    expect({ status: r.status, code: r.body?.code, param: r.body?.param, detail: r.body?.detail }).toEqual({
      status: 400,
      code: 'invalid_request',
      param,
      detail,
    });
  };
  const storedLead = async (leadId: string) =>
    (await t.sql('SELECT external_id, status_reason, status, version FROM leads WHERE lead_id = $1', [leadId]))[0];

  it('covers the names the audit found', () => {
    expect(PROTOTYPE_NAMES).toEqual(
      expect.arrayContaining(['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__']),
    );
  });

  it.each(LISTS)('GET %s?<name>=x answers 400 "<name> is not a known parameter" for each name', async (list) => {
    expectRefused(await t.get(`${list}?foo=x`, { key: firm.keys.read }), 'foo', 'foo is not a known parameter.');
    for (const name of PROTOTYPE_NAMES) {
      const r = await t.get(`${list}?${name}=x`, { key: firm.keys.read });
      expectRefused(r, name, `${name} is not a known parameter.`);
    }
  });

  it('an operation that takes no query parameters refuses them too', async () => {
    for (const name of PROTOTYPE_NAMES) {
      expectRefused(await t.get(`/v1/account?${name}=1`, { key: firm.keys.read }), name, `${name} is not a known parameter.`);
    }
  });

  it('PATCH /v1/leads/{id} with {"external_id":"ok", <name>:"x"} answers 400 naming it and writes nothing', async () => {
    const leadId = (await ingestOk(t, firm.orgId, nextCallId(), fullCallDocument())).lead_id as string;
    const before = await storedLead(leadId);
    // Written member by member, so "__proto__" is a member and not a prototype.
    for (const name of PROTOTYPE_NAMES.filter((n) => n !== '__proto__')) {
      const r = await t.request('PATCH', `/v1/leads/${leadId}`, {
        key: firm.keys['read-update-leads'],
        rawBody: `{"external_id":"ok",${JSON.stringify(name)}:"x"}`,
        headers: { 'content-type': 'application/json' },
      });
      expectRefused(r, name, `${name} is not allowed; ${BODY_TAKES}.`);
    }
    const proto = await t.request('PATCH', `/v1/leads/${leadId}`, {
      key: firm.keys['read-update-leads'],
      rawBody: '{"external_id":"ok","__proto__":{"status":"signed"}}',
      headers: { 'content-type': 'application/json' },
    });
    expect({ status: proto.status, code: proto.body?.code }).toEqual({ status: 400, code: 'invalid_request' });
    expect(await storedLead(leadId)).toEqual(before);
  });

  it('the internal call document refuses them at the top and nested, naming the path, and stores no call', async () => {
    for (const [name, where] of [
      ['constructor', (doc: any, v: unknown) => (doc.constructor = v)],
      ['untrusted.valueOf', (doc: any, v: unknown) => (doc.untrusted.valueOf = v)],
      ['untrusted.details.about[0].toString', (doc: any, v: unknown) => (doc.untrusted.details.about[0].toString = v)],
    ] as const) {
      const callId = nextCallId();
      const doc = fullCallDocument();
      where(doc, 'x');
      const r = await putCall(t, firm.orgId, callId, doc);
      expect({ status: r.status, code: r.body?.code, param: r.body?.param }).toEqual({ status: 400, code: 'invalid_request', param: name });
      expect(await t.sql('SELECT 1 FROM calls WHERE call_id = $1', [callId])).toEqual([]);
    }
  });
});
