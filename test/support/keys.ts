import { createHash, randomBytes } from 'node:crypto';
import type { TestApp } from './test-app';

/**
 * A key holding exactly `scopes`, written straight to the table: stands in for
 * keys made before a scope existed (the spec's legacy keys), which no
 * permission set can create any more. `livemode: false` makes a test key (svc_test_).
 */
export async function insertKeyWithScopes(
  t: TestApp,
  orgId: string,
  scopes: string[],
  opts: { livemode?: boolean } = {},
): Promise<{ id: string; key: string }> {
  const livemode = opts.livemode ?? true;
  const key = (livemode ? 'svc_live_' : 'svc_test_') + randomBytes(32).toString('base64url');
  const prefix = key.slice(9, 17);
  const hash = createHash('sha256').update(key).digest();
  const [row] = await t.sql(
    `INSERT INTO api_keys (org_id, name, prefix, last4, key_hash, permission_set, scopes, livemode)
     VALUES ($1, 'legacy', $2, $3, $4, 'legacy', $5, $6) RETURNING id`,
    [orgId, prefix, key.slice(-4), hash, scopes, livemode],
  );
  return { id: row.id, key };
}
