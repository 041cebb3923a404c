import { Injectable } from '@nestjs/common';
import { AccountService } from '../account/index.js';
import { ApiKeyService } from '../auth/index.js';
import { Clock } from '../common/clock.js';
import { PERMISSION_SET_NAMES, type PermissionSet } from '../common/http/scopes.js';
import { IngestionService } from '../ingestion/index.js';
import { LeadWritesService } from '../leads/index.js';
import { ReceptionistService } from '../receptionist/index.js';
import { RecordingsService } from '../recordings/index.js';
import { demoHistory } from './demo-history.js';
import { demoRecordingPath } from './demo-recordings.js';
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
    private readonly ingestion: IngestionService,
    private readonly leads: LeadWritesService,
    private readonly recordings: RecordingsService,
    private readonly clock: Clock,
  ) {}

  async hasAnyFirm(): Promise<boolean> {
    return this.account.hasAnyOrg();
  }

  async seed(): Promise<DemoSeedResult> {
    let slug = 'harper-legal';
    for (let n = 2; await this.account.slugTaken(slug); n++) slug = `harper-legal-${n}`;
    const org = await this.account.createOrg({
      name: 'Harper Injury Law',
      slug,
      timezone: 'America/Chicago',
      number: '+13125550100',
      ownerEmail: 'dana@harperlegal.example',
    });
    const trialEnds = new Date(this.clock.now().getTime() + 14 * 86_400_000);
    await this.account.updateOrg(org.id, { status: 'live', plan: 'trial', billingStatus: 'trialing', trialEndsAt: trialEnds });
    await this.receptionist.publish(org.id, DEMO_SETTINGS);
    const keys = {} as Record<PermissionSet, string>;
    const keyIds = {} as Record<PermissionSet, string>;
    for (const set of PERMISSION_SET_NAMES) {
      const created = await this.keys.create({ orgId: org.id, name: `Demo (${set})`, set });
      keys[set] = created.key;
      keyIds[set] = created.summary.id;
    }
    await this.seedHistory(org.id, keyIds['read-update-leads']);
    return { org_id: org.id, slug: org.slug, keys };
  }

  /**
   * The last 60 days of calls through the real ingestion port, then the
   * firm's own follow-up on the leads (statuses, its ids, notes) through the
   * same path as PATCH /v1/leads, as the demo key.
   */
  private async seedHistory(orgId: string, keyId: string): Promise<void> {
    const history = demoHistory(this.clock.now());
    const results = await this.ingestion.ingestMany(orgId, history.documents, { livemode: true });
    await this.seedRecordings(orgId, history.documents);
    const leadByCall = new Map(results.map((r) => [r.call_id, r.lead_id]));
    for (const plan of history.leads) {
      const leadId = leadByCall.get(plan.callId);
      if (!leadId || (plan.status === 'new' && plan.external_id === null && plan.status_reason === null)) continue;
      await this.leads.update(
        orgId,
        true,
        leadId,
        { ...(plan.status !== 'new' ? { status: plan.status } : {}), external_id: plan.external_id, status_reason: plan.status_reason },
        { kind: 'api_key', id: keyId },
      );
    }
  }

  /**
   * Every answered demo call gets a real Ogg Opus recording (committed
   * fixtures, synthesized speech): Spanish speech for Spanish calls.
   */
  private async seedRecordings(orgId: string, documents: Record<string, unknown>[]): Promise<void> {
    let n = 0;
    for (const doc of documents) {
      if (doc.answered !== true) continue;
      const path = demoRecordingPath(doc.language as string | null, doc.language === 'es' ? 0 : n++);
      await this.recordings.storeFromFile(orgId, doc.call_id as string, path);
    }
  }
}
