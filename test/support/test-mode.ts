import { ApiKeyService } from '../../src/auth';
import { PERMISSION_SET_NAMES, type PermissionSet } from '../../src/common/http/scopes';
import { IngestionService, type IngestResult } from '../../src/ingestion';
import type { TestApp } from './test-app';

/** One test key (svc_test_) per permission set, made as the owner makes them. */
export async function createTestKeys(t: TestApp, orgId: string): Promise<Record<PermissionSet, string>> {
  const keys = {} as Record<PermissionSet, string>;
  for (const set of PERMISSION_SET_NAMES) {
    keys[set] = (await t.app.get(ApiKeyService).create({ orgId, name: `test-mode ${set}`, set, livemode: false })).key;
  }
  return keys;
}

/** A test-mode call, through the pipeline's own validation and writes (the code path test helpers use). */
export function ingestTestCall(t: TestApp, orgId: string, callId: string, document: unknown): Promise<IngestResult> {
  return t.app.get(IngestionService).ingest(orgId, document, callId, { livemode: false });
}

/** A test-mode call made as an integrator makes one: POST /v1/test-helpers/calls with a test key (no recording: quicker). */
export async function simulateTestCall(t: TestApp, testKey: string): Promise<{ call_id: string; lead_id: string | null }> {
  const r = await t.request('POST', '/v1/test-helpers/calls', { key: testKey, body: { recording: false } });
  if (r.status !== 201) throw new Error(`test-helper call failed: ${r.status} ${r.text}`);
  return r.body;
}
