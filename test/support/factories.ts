import type { INestApplicationContext } from '@nestjs/common';
import { AccountService } from '../../src/account';
import { ApiKeyService } from '../../src/auth';
import { PERMISSION_SET_NAMES, type PermissionSet } from '../../src/common/http/scopes';
import { ReceptionistService } from '../../src/receptionist';
import { DEMO_SETTINGS } from '../../src/demo';

export interface TestFirm {
  orgId: string;
  slug: string;
  /** One key per permission set. */
  keys: Record<PermissionSet, string>;
  keyIds: Record<PermissionSet, string>;
}

let counter = 0;

/** A firm through the same services the dashboard CLI uses, with one key per permission set. */
export async function createFirm(
  app: INestApplicationContext,
  opts: { publish?: boolean; slug?: string; timezone?: string } = {},
): Promise<TestFirm> {
  const account = app.get(AccountService);
  const slug = opts.slug ?? `firm-${process.pid}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
  const org = await account.createOrg({ name: `Firm ${slug}`, slug, timezone: opts.timezone ?? 'America/Chicago' });
  if (opts.publish !== false) await app.get(ReceptionistService).publish(org.id, DEMO_SETTINGS);
  const keys = {} as Record<PermissionSet, string>;
  const keyIds = {} as Record<PermissionSet, string>;
  for (const set of PERMISSION_SET_NAMES) {
    const created = await app.get(ApiKeyService).create({ orgId: org.id, name: `test ${set}`, set });
    keys[set] = created.key;
    keyIds[set] = created.summary.id;
  }
  return { orgId: org.id, slug: org.slug, keys, keyIds };
}
