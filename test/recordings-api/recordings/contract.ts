import SwaggerParser from '@apidevtools/swagger-parser';
import { type TestFirm } from '../../support/factories';
import { uploadPath } from '../../support/recordings';
import { TEST_INTERNAL_TOKEN, type TestApp } from '../../support/test-app';
import { type RecordingsContext } from './context';

/**
 * What every recording route shares: the document, query parameters, and logs without a link token. Registered last
 * by ../recordings.cases.ts: its last case reads every log line the app wrote.
 */
export function contractCases(context: () => RecordingsContext): void {
  let t: TestApp;
  let firm: TestFirm;
  let withRecording: RecordingsContext['withRecording'];
  let createLink: RecordingsContext['createLink'];
  let hasRecording: RecordingsContext['hasRecording'];
  let logLines: string[];
  let tokens: string[];
  beforeAll(() => {
    ({ t, firm, withRecording, createLink, hasRecording, logLines, tokens } = context());
  });

  it('documents the public routes in OpenAPI and leaves the internal ones out', async () => {
    const doc = (await t.get('/v1/openapi.json')).body;
    // Validated on its own: these paths with the schemas they use (the rest of the document is other contexts' business).
    const paths = ['/v1/calls/{call_id}/recording', '/v1/calls/{call_id}/recording-link', '/v1/recordings/{token}'];
    const schemas = ['Problem', 'ProblemFieldError', 'RecordingLinkDto'];
    await SwaggerParser.validate(
      structuredClone({
        ...doc,
        paths: Object.fromEntries(paths.map((p) => [p, doc.paths[p]])),
        webhooks: {},
        components: { ...doc.components, schemas: Object.fromEntries(schemas.map((n) => [n, doc.components.schemas[n]])) },
      }),
    );
    const rec = doc.paths['/v1/calls/{call_id}/recording'];
    expect(Object.keys(rec.get.responses)).toEqual(expect.arrayContaining(['200', '206', '401', '403', '404']));
    expect(rec.get.responses['206'].content['audio/ogg']).toEqual({
      schema: { type: 'string', format: 'binary', contentMediaType: 'audio/ogg' },
    });
    expect(rec.get['x-required-scope']).toBe('calls:recording');
    expect(rec.get.security).toEqual([{ api_key: [] }]);
    // HEAD is documented as refused: 405 with Allow: GET, to anyone; 400 and 404 only for a request target
    // that cannot be decoded (answered before any route: test/hostile-requests/fuzz-findings.cases.ts), 503 from a process shutting
    // down (test/outage.e2e.spec.ts).
    expect(Object.keys(rec.head.responses).sort()).toEqual(['400', '404', '405', '503']);
    expect(rec.head.security).toEqual([]);
    const link = doc.paths['/v1/calls/{call_id}/recording-link'].post;
    expect(Object.keys(link.responses)).toContain('201');
    expect(link.responses['201'].content['application/json'].schema.$ref).toBe('#/components/schemas/RecordingLinkDto');
    const play = doc.paths['/v1/recordings/{token}'];
    expect(play.get.security).toEqual([]);
    expect(Object.keys(play.get.responses)).toEqual(expect.arrayContaining(['200', '206', '404']));
    expect(Object.keys(play.head.responses).sort()).toEqual(['400', '404', '405', '503']);
    expect(Object.keys(play.get.responses)).toContain('400');
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/internal'))).toEqual([]);
  });

  it('a token sent to a mistyped path is not logged either', async () => {
    const callId = await withRecording();
    const link = await createLink(callId);
    expect((await t.get(`/V1/Recordings/${link.token}`)).status).toBe(404);
    expect((await t.get(`/v1/RECORDINGS/${link.token}`)).status).toBe(404);
  });

  it('refuses unknown query parameters with 400 naming them, on every recording route', async () => {
    const callId = await withRecording();
    const link = await createLink(callId);
    const tries = [
      await t.get(`/v1/calls/${callId}/recording`, { key: firm.keys.read, query: { download: '1' } }),
      await t.request('POST', `/v1/calls/${callId}/recording-link`, { key: firm.keys.read, query: { download: '1' } }),
      await t.get(link.path, { query: { download: '1' } }),
      await t.request('DELETE', uploadPath(firm.orgId, callId), { key: TEST_INTERNAL_TOKEN, query: { download: '1' } }),
    ];
    for (const r of tries) {
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_request', param: 'download' });
      expect(r.text).not.toContain(link.token);
    }
    expect(await hasRecording(firm.orgId, callId)).toBe(true);
  });

  // Every token handed out on this app so far (tests run in any order), plus links made and played here.
  it('logged the whole file without a single link token (the path is redacted)', async () => {
    const callId = await withRecording();
    for (let i = 0; i < 11; i++) {
      const link = await createLink(callId);
      expect((await t.get(`/v1/recordings/${link.token}`)).status).toBe(200);
    }
    const text = logLines.join('');
    expect(tokens.length).toBeGreaterThan(10);
    expect(text).toContain('/v1/recordings/[REDACTED]');
    for (const token of tokens) expect(text).not.toContain(token);
    // Nothing went wrong on the way (a failed file removal, say, would be a warning).
    const lines = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
  });
}
