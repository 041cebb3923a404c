import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCHEMA_FILE, generateTypes } from '../../clients/typescript/generate.mjs';
import { createReceptionistClient, isKnownEvent, iterateCalls, type EventLogEntry } from '../../clients/typescript/src/index';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { createFirm } from '../support/factories';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

describe('typed client (clients/typescript)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await sharedTestApp(internalEnv);
  });

  it('regenerating the types from the running service gives no diff (else: npm run client:generate)', async () => {
    const served = await t.get('/v1/openapi.json');
    expect(served.status).toBe(200);
    expect(await generateTypes(served.text)).toBe(readFileSync(fileURLToPath(SCHEMA_FILE), 'utf8'));
  });

  it('iterates every call across pages and types the events', async () => {
    const f = await createFirm(t.app, { publish: false });
    const ids = await Promise.all([1, 2, 3].map(async () => (await ingestOk(t, f.orgId, nextCallId(), fullCallDocument())).call_id));
    const client = createReceptionistClient(t.baseUrl, f.keys.read);
    // Every answer the client receives is checked against the served document, as request() checks its own.
    client.use({ onResponse: ({ request, response }) => t.check(request.method, request.url, response) });
    const seen: string[] = [];
    // limit is documented as an integer, so the generated query type takes a number.
    for await (const call of iterateCalls(client, { limit: 2 })) seen.push(call.call_id);
    expect(seen.sort()).toEqual([...ids].sort());
    const { data } = await client.GET('/v1/events', { params: { query: {} } });
    const events: EventLogEntry[] = data!.events;
    expect(events.map((e) => e.type)).toContain('call.completed');
    // Every entry the service sends today is of a known type; one of a type added later is not taken for one.
    expect(events.filter((e) => !isKnownEvent(e))).toEqual([]);
    expect(isKnownEvent({ ...events[0], type: 'call.transcribed', data: {} } as EventLogEntry)).toBe(false);
  });
});
