import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestApp } from './test-app';
import { TEST_INTERNAL_TOKEN } from './test-app';

/** Jest runs from the repository root. */
export const FIXTURES = resolve(process.cwd(), 'fixtures/recordings');
export const fixture = (name: string): Buffer => readFileSync(join(FIXTURES, name));

/** A DATA_DIR of its own for each test app, so recordings never land in the worktree. */
export function tempDataDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'recordings-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every file under DATA_DIR/recordings (relative paths), tmp/ included. */
export function storedFiles(dataDir: string): string[] {
  const root = join(dataDir, 'recordings');
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p, rel ? `${rel}/${name}` : name);
      else out.push(rel ? `${rel}/${name}` : name);
    }
  };
  walk(root, '');
  return out.sort();
}

export async function insertCall(t: TestApp, orgId: string, callId: string): Promise<void> {
  await t.sql('INSERT INTO calls (org_id, call_id, started_at) VALUES ($1, $2, now())', [orgId, callId]);
}

export const uploadPath = (orgId: string, callId: string) => `/internal/v1/orgs/${orgId}/calls/${callId}/recording`;

/** PUT an audio/ogg body through the internal route. */
export function upload(t: TestApp, orgId: string, callId: string, body: Buffer, headers: Record<string, string> = {}) {
  return t.request('PUT', uploadPath(orgId, callId), {
    key: TEST_INTERNAL_TOKEN,
    rawBody: body,
    headers: { 'content-type': 'audio/ogg', ...headers },
  });
}

export interface BinaryResult {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

/** GET with the body kept as bytes (t.get decodes text); checked against the served document like t.get. */
export async function getBytes(
  t: TestApp,
  path: string,
  opts: { key?: string; headers?: Record<string, string>; method?: string } = {},
): Promise<BinaryResult> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  const method = opts.method ?? 'GET';
  const res = await t.check(method, path, await fetch(new URL(path, t.baseUrl), { method, headers }));
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

export const headerNames = (h: Headers): string[] => [...h.keys()].map((k) => k.toLowerCase());
