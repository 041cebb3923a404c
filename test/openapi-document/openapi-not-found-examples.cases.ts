import { randomBytes } from 'node:crypto';
import { eventIdEnds } from '../../src/common/ids';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { createFirm, type TestFirm } from '../support/factories';
import { MISSING_ID } from '../support/id-cases';
import { servedDocument, type ServedDocument } from '../support/served-document';
import { sharedTestApp } from '../support/shared-app';
import { createTestKeys } from '../support/test-mode';
import type { HttpResult, TestApp } from '../support/test-app';

/**
 * Each operation's 404 example is its own resource's: the detail names what the operation's path names (never "The
 * call was not found." on a lead, an event or the account), and it is the detail this server really answers there.
 */
type Json = Record<string, any>;

/** What a 404 names, from the operation's path: its last id parameter's resource, a call's recording, or the key's firm. */
function resourceOf(method: string, path: string): string {
  // HEAD answers 405 on every route; its only 404 is the router's, for a path that names no route (no resource).
  if (method === 'head') return 'resource';
  if (/\/recording(-link)?$/.test(path)) return 'recording of this call';
  const last = [...path.matchAll(/\{(\w+)\}/g)].pop()?.[1];
  const byParameter: Record<string, string> = {
    call_id: 'call',
    lead_id: 'lead',
    event_id: 'event',
    endpoint_id: 'webhook endpoint',
    delivery_id: 'webhook delivery',
    token: 'recording link',
  };
  if (last) return byParameter[last] ?? `the resource of {${last}}`;
  return path === '/v1/account' ? 'firm' : `the resource of ${path}`;
}

const uuids = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** A detail with its ids taken out, so an example's can be compared with a real answer's. */
const shapeOf = (detail: unknown) => String(detail).replace(uuids, '<uuid>');

let t: TestApp;
let served: ServedDocument;
let firm: TestFirm;

beforeAll(async () => {
  t = await sharedTestApp({ ...internalEnv, BASE_URL: '' });
  served = await servedDocument(t);
  firm = await createFirm(t.app);
});

const notFoundOperations = () =>
  served.operations().flatMap(({ label, op }) => {
    const example = op.responses['404']?.content?.['application/problem+json']?.example as Json | undefined;
    const [method, path] = label.split(' ');
    return op.responses['404'] ? [{ label, id: op.operationId as string, method: method.toLowerCase(), path, example }] : [];
  });

describe('each 404 example is its own resource’s', () => {
  it('names the resource its operation’s path names', () => {
    const operations = notFoundOperations();
    expect(operations.length).toBeGreaterThanOrEqual(14);
    const wrong = operations
      .map(({ label, method, path, example }) => ({ label, resource: resourceOf(method, path), detail: String(example?.detail) }))
      .filter(({ resource, detail }) => !new RegExp(`\\b${resource}\\b`, 'i').test(detail))
      .map(({ label, resource, detail }) => `${label}: "${detail}" does not name the ${resource}`);
    expect(wrong).toEqual([]);
  });

  it('is the detail this server answers there', async () => {
    const key = firm.keys['read-update-leads'];
    const testKey = (await createTestKeys(t, firm.orgId))['read-update-leads'];
    // A call of the firm without a recording, and an event id the server could have made but never did.
    const bare = nextCallId();
    await ingestOk(t, firm.orgId, bare, fullCallDocument());
    const ends = eventIdEnds(new Date());
    const gone = await createFirm(t.app);
    await t.sql(
      `SET session_replication_role = replica; DELETE FROM orgs WHERE id = '${gone.orgId}'; SET session_replication_role = origin;`,
    );
    const provoke: Record<string, () => Promise<HttpResult>> = {
      getAccount: () => t.get('/v1/account', { key: gone.keys.read }),
      getEvent: () => t.get(`/v1/events/${ends.head}0001000000000001${ends.tail}`, { key }),
      getCall: () => t.get(`/v1/calls/${MISSING_ID.call()}`, { key }),
      getCallTranscript: () => t.get(`/v1/calls/${MISSING_ID.call()}/transcript`, { key }),
      getLead: () => t.get(`/v1/leads/${MISSING_ID.lead()}`, { key }),
      patchLead: () => t.request('PATCH', `/v1/leads/${MISSING_ID.lead()}`, { key, body: { status: 'contacted' } }),
      getCallRecording: () => t.get(`/v1/calls/${bare}/recording`, { key }),
      createRecordingLink: () => t.request('POST', `/v1/calls/${bare}/recording-link`, { key }),
      playRecording: () => t.get(`/v1/recordings/${randomBytes(32).toString('base64url')}`),
      testWebhookEndpoint: () => t.request('POST', `/v1/webhook-endpoints/${MISSING_ID.endpoint()}/test`, { key }),
      redeliverWebhookDelivery: () => t.request('POST', `/v1/webhook-deliveries/${MISSING_ID.delivery()}/redeliver`, { key }),
      reprocessCall: () => t.request('POST', `/v1/test-helpers/calls/${MISSING_ID.call()}/reprocess`, { key: testKey }),
    };
    // HEAD answers carry no body: there is no detail to compare (its example is the router's, named above).
    const operations = notFoundOperations().filter(({ method }) => method !== 'head');
    expect(operations.map(({ id }) => id).sort()).toEqual(Object.keys(provoke).sort());
    const answers: [string, number, string][] = [];
    for (const { id } of operations) {
      const r = await provoke[id]();
      answers.push([id, r.status, shapeOf(r.body?.detail)]);
    }
    expect(answers).toEqual(operations.map(({ id, example }) => [id, 404, shapeOf(example?.detail)]));
  });
});
