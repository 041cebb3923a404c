import { Injectable, type OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import type { Tx } from '../database/sql.js';
import { LeadWritesService, type LeadChange } from '../leads/index.js';
import { EventsService } from './events.service.js';

/**
 * Records lead.created and lead.updated for every lead write, inside its
 * transaction. Events depends on leads (the catalogue reads its statuses and
 * fields), so leads tells its changes through a registered recorder instead of
 * importing this context.
 */
@Injectable()
export class LeadEvents implements OnModuleInit {
  constructor(
    private readonly leads: LeadWritesService,
    private readonly events: EventsService,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.leads.onChange((tx, change) => this.record(tx, change));
  }

  private async record(tx: Tx, change: LeadChange): Promise<void> {
    if (change.kind === 'created') {
      const { lead } = change;
      await this.events.record(tx, {
        orgId: change.orgId,
        livemode: lead.livemode,
        type: 'lead.created',
        data: {
          lead_id: lead.leadId,
          call_id: lead.callId,
          status: 'new',
          category: lead.category,
          urgency: lead.urgency,
          url: this.url(lead.leadId),
        },
      });
      return;
    }
    const { before, after } = change;
    await this.events.record(tx, {
      orgId: change.orgId,
      livemode: after.livemode,
      type: 'lead.updated',
      data: {
        lead_id: after.leadId,
        call_id: after.callId,
        status: after.status,
        previous_status: before.status,
        changes: change.changes,
        changed_by: change.by,
        url: this.url(after.leadId),
      },
    });
  }

  private url(leadId: string): string {
    return `${this.config.baseUrl}/v1/leads/${encodeURIComponent(leadId)}`;
  }
}
