import { Injectable } from '@nestjs/common';
import { AccountService } from '../account/index.js';
import { ApiKeyService } from '../auth/index.js';
import { Clock } from '../common/clock.js';
import { PERMISSION_SET_NAMES, type PermissionSet } from '../common/http/scopes.js';
import { ReceptionistService } from '../receptionist/index.js';
import { DEMO_SETTINGS } from './demo-settings.js';

export interface DemoSeedResult {
  org_id: string;
  slug: string;
  keys: Record<PermissionSet, string>;
}

/** A realistic demo firm for the quick start and for exploring in Swagger UI. */
@Injectable()
export class DemoService {
  constructor(
    private readonly account: AccountService,
    private readonly keys: ApiKeyService,
    private readonly receptionist: ReceptionistService,
    private readonly clock: Clock,
  ) {}

  async hasAnyFirm(): Promise<boolean> {
    return (await this.account.listOrgs()).length > 0;
  }

  async seed(): Promise<DemoSeedResult> {
    const existing = new Set((await this.account.listOrgs()).map((o) => o.slug));
    let slug = 'harper-legal';
    for (let n = 2; existing.has(slug); n++) slug = `harper-legal-${n}`;
    const org = await this.account.createOrg({ name: 'Harper Injury Law', slug, timezone: 'America/Chicago', number: '+13125550100', ownerEmail: 'dana@harperlegal.example' });
    const trialEnds = new Date(this.clock.now().getTime() + 14 * 86_400_000);
    await this.account.updateOrg(org.id, { status: 'live', plan: 'trial', billingStatus: 'trialing', trialEndsAt: trialEnds });
    await this.receptionist.publish(org.id, DEMO_SETTINGS);
    const keys = {} as Record<PermissionSet, string>;
    for (const set of PERMISSION_SET_NAMES) {
      keys[set] = (await this.keys.create({ orgId: org.id, name: `Demo (${set})`, set })).key;
    }
    return { org_id: org.id, slug: org.slug, keys };
  }
}
