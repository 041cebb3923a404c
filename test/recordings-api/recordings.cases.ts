import { PassThrough } from 'node:stream';
import { createFirm, type TestFirm } from '../support/factories';
import { insertCall, upload } from '../support/recordings';
import { RECORDING_STORES, startStore, type StoreUnderTest } from '../support/recording-stores';
import { startTestApp, TEST_INTERNAL_TOKEN, type TestApp } from '../support/test-app';
import { caller, MAX_BYTES, type RecordingsContext } from './recordings/context';
import { contractCases } from './recordings/contract';
import { downloadCases } from './recordings/downloads';
import { linkCases } from './recordings/links';
import { uploadCases } from './recordings/uploads';

/**
 * The HTTP contract of recordings, on each store: the upload's body stage (415, 413, streaming, abandoned uploads),
 * the answers' status and headers (ranges, If-Range, HEAD, no CORS on links), scopes, 404s, the document and the
 * logs, one topic a file in ./recordings/. What uploads, removals, reads and links write and allow is tested on the
 * services: test/medium/records/recordings.cases.ts.
 *
 * Each store's app is their own, closed before the next store's starts: the last case reads every log line the app
 * wrote. (nestjs-pino sends the Nest logger's lines of every app of a spec file to its first app's stream: the group
 * spec imports these cases first.)
 */
describe.each(RECORDING_STORES)('call recordings (%s store)', (kind) => {
  let store: StoreUnderTest;
  // Every log line the app writes during these cases, to prove no link token is ever logged.
  const logLines: string[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => logLines.push(chunk.toString('utf8')));
  /** Every token these cases were handed. */
  const tokens: string[] = [];

  let t: TestApp;
  let firm: TestFirm;
  let other: TestFirm;
  // What each topic's cases are handed, set once the app is up (they read it in a beforeAll of their own).
  let context: RecordingsContext;

  beforeAll(async () => {
    store = await startStore(kind);
    t = await startTestApp({
      env: { ...store.env, INTERNAL_API_TOKEN: TEST_INTERNAL_TOKEN, RECORDING_MAX_BYTES: String(MAX_BYTES), LOG_LEVEL: 'debug' },
      logStream,
    });
    firm = await createFirm(t.app);
    other = await createFirm(t.app);
    context = { store, t, firm, other, logLines, tokens, newCall, withRecording, createLink, hasRecording };
  });
  afterAll(async () => {
    await t?.close();
    await store?.close();
  });

  let n = 0;
  const newCall = async (orgId = firm.orgId) => {
    const callId = `call_rec${++n}_${Math.random().toString(36).slice(2, 8)}`;
    await insertCall(t, orgId, callId);
    return callId;
  };
  const withRecording = async (body = caller, orgId = firm.orgId) => {
    const callId = await newCall(orgId);
    const r = await upload(t, orgId, callId, body);
    expect(r.status).toBe(200);
    return callId;
  };
  const createLink = async (callId: string, key = firm.keys.read) => {
    const r = await t.request('POST', `/v1/calls/${callId}/recording-link`, { key });
    expect(r.status).toBe(201);
    const token = r.body.url.slice(`${t.config.baseUrl}/v1/recordings/`.length);
    tokens.push(token);
    return { token, path: `/v1/recordings/${token}`, body: r.body, headers: r.headers };
  };
  const hasRecording = async (orgId: string, callId: string) =>
    (await t.sql('SELECT has_recording FROM calls WHERE org_id = $1 AND call_id = $2', [orgId, callId]))[0].has_recording;

  uploadCases(() => context);
  downloadCases(() => context);
  linkCases(() => context);
  // Last: its last case reads the whole log.
  contractCases(() => context);
});
