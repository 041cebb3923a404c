import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { createFirm, type TestFirm } from '../support/factories';
import { sharedTestApp } from '../support/shared-app';
import { type TestApp } from '../support/test-app';

const run = promisify(execFile);
const MiB = 1024 * 1024;
/** A small body, and the 8 MiB one Node's fetch used to get `write EPIPE` for instead of the answer. */
const SIZES = [2_000_000, 8 * MiB];
const CLIENTS = resolve('test/support/body-clients.mjs');

interface Refusal {
  name: string;
  method: string;
  path: () => string;
  headers: () => Record<string, string>;
  chunked?: boolean;
  /** The byte the body is made of: `a`, or `[` for a body nested too deep from its 33rd byte. */
  fill?: 'a' | '[';
  status: number;
  code: string;
}

interface Seen {
  status: number;
  connection: string | null;
  code: string | null;
  error: string | null;
}

/**
 * Every refusal given before a body is read (or while it is, over the
 * route's limit) reaches a client that keeps sending the body: Node's fetch,
 * node:http and curl, each in a process of its own, up to 8 MiB sent. The
 * connection closes in stages (src/common/http/lingering-close.ts): answer,
 * FIN, the rest read and dropped, within bounds a hostile sender cannot
 * stretch.
 */
describe('every refusal reaches a client still sending its body', () => {
  let t: TestApp;
  let firm: TestFirm;
  let leadId: string;
  let callId: string;
  /** The bodies curl sends, made in beforeAll (a describe skipped by a filter makes none). */
  let folder: string;
  const FILLS = ['a', '['] as const;
  const bodyFile = (size: number, fill: 'a' | '[' = 'a') => join(folder, `${fill === 'a' ? 'plain' : 'deep'}-${size}`);

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'refusal-bodies-'));
    t = await sharedTestApp(internalEnv);
    firm = await createFirm(t.app);
    callId = nextCallId();
    leadId = (await ingestOk(t, firm.orgId, callId, fullCallDocument())).lead_id as string;
    for (const size of SIZES) for (const fill of FILLS) writeFileSync(bodyFile(size, fill), Buffer.alloc(size, fill));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  const json = { 'content-type': 'application/json' };
  const lead = () => `/v1/leads/${leadId}`;
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const REFUSALS: Refusal[] = [
    {
      name: '413 over the route limit',
      method: 'PATCH',
      path: lead,
      headers: () => ({ ...json, ...bearer(firm.keys['read-update-leads']) }),
      status: 413,
      code: 'payload_too_large',
    },
    {
      name: '413 over the route limit, chunked (refused while read)',
      method: 'PATCH',
      path: lead,
      headers: () => ({ ...json, ...bearer(firm.keys['read-update-leads']) }),
      chunked: true,
      status: 413,
      code: 'payload_too_large',
    },
    {
      name: '400 nested too deep, chunked (refused while read)',
      method: 'PATCH',
      path: lead,
      headers: () => ({ ...json, ...bearer(firm.keys['read-update-leads']) }),
      chunked: true,
      fill: '[',
      status: 400,
      code: 'invalid_request',
    },
    { name: '401 without a key', method: 'PATCH', path: lead, headers: () => json, status: 401, code: 'unauthorized' },
    {
      name: '401 without a key, chunked',
      method: 'PATCH',
      path: lead,
      headers: () => json,
      chunked: true,
      status: 401,
      code: 'unauthorized',
    },
    {
      name: '403 without the scope',
      method: 'PATCH',
      path: lead,
      headers: () => ({ ...json, ...bearer(firm.keys.read) }),
      status: 403,
      code: 'insufficient_scope',
    },
    {
      name: '415 a body where none is taken',
      method: 'POST',
      path: () => `/v1/calls/${callId}/recording-link`,
      headers: () => ({ 'content-type': 'text/plain', ...bearer(firm.keys.read) }),
      status: 415,
      code: 'unsupported_media_type',
    },
    {
      name: '405 a method the path does not have',
      method: 'POST',
      path: () => '/v1/calls',
      headers: () => json,
      status: 405,
      code: 'method_not_allowed',
    },
    { name: '404 no such path', method: 'POST', path: () => '/v1/nowhere', headers: () => json, status: 404, code: 'not_found' },
  ];
  const expected = (r: Refusal) => ({ status: r.status, connection: 'close', code: r.code, error: null });
  const exchanges = () => SIZES.flatMap((size) => REFUSALS.map((r) => ({ r, size })));

  it.each(['fetch', 'http'])("Node's %s reads each answer, and raises no error", async (client) => {
    const sent = exchanges().map(({ r, size }) => ({
      client,
      method: r.method,
      url: t.baseUrl + r.path(),
      headers: r.headers(),
      size,
      chunked: r.chunked === true,
      fill: r.fill ?? 'a',
    }));
    const { stdout } = await run(process.execPath, [CLIENTS, JSON.stringify(sent)], { timeout: 120_000 });
    const seen = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Seen);
    expect(seen.map((s, i) => ({ case: `${exchanges()[i].r.name}, ${exchanges()[i].size} bytes`, ...s }))).toEqual(
      exchanges().map(({ r, size }) => ({ case: `${r.name}, ${size} bytes`, ...expected(r) })),
    );
  });

  it('curl reads each answer and exits 0 (sending the body at once, without Expect: 100-continue)', async () => {
    const wrong: string[] = [];
    for (const { r, size } of exchanges()) {
      const headers = Object.entries({ ...r.headers(), expect: '', ...(r.chunked ? { 'transfer-encoding': 'chunked' } : {}) });
      const args = ['-sS', '-X', r.method, '-w', '\n%{http_code}', '--data-binary', `@${bodyFile(size, r.fill)}`];
      for (const [name, value] of headers) args.push('-H', `${name}:${value ? ` ${value}` : ''}`);
      const out = await run('curl', [...args, t.baseUrl + r.path()], { timeout: 60_000 }).catch(
        (e: { code?: number; stderr?: string }) => ({
          stdout: `exit ${e.code}: ${e.stderr}`,
        }),
      );
      const [body, status] = [out.stdout.slice(0, out.stdout.lastIndexOf('\n')), out.stdout.slice(out.stdout.lastIndexOf('\n') + 1)];
      const code = /"code":"([a-z_]+)"/.exec(body)?.[1];
      if (status !== String(r.status) || code !== r.code) wrong.push(`${r.name}, ${size} bytes: ${out.stdout.slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
  });
});
