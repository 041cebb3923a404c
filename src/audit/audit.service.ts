import { Injectable } from '@nestjs/common';
import { OpsSignals } from '../common/ops/ops-signals.js';
import type { Tx } from '../database/sql.js';
import { AuditRepository, type NewAuditEntry } from './audit.repository.js';
import { ReadAuditWriter } from './read-audit-writer.js';

export type AuditActor =
  | { type: 'api_key'; id: string }
  | { type: 'owner'; id: string | null }
  | { type: 'recording_link'; id: string }
  /** The endpoint owner's console: the session (console_sessions.id) that acted. */
  | { type: 'console_session'; id: string }
  | { type: 'system'; id: string | null };

export interface AuditRecord {
  orgId: string;
  actor: AuditActor;
  /** e.g. api_key.created, calls.listed, call.read, recording.played */
  action: string;
  resourceType: string;
  resourceIds: string[];
  details?: Record<string, unknown>;
}

export interface AuditEntryView {
  at: string;
  actor_type: string;
  actor_id: string | null;
  action: string;
  resource_type: string;
  resource_ids: string[];
  details: Record<string, unknown> | null;
}

const toNewEntry = ({ orgId, actor, action, resourceType, resourceIds, details }: AuditRecord): NewAuditEntry => ({
  orgId,
  actorType: actor.type,
  actorId: actor.id,
  action,
  resourceType,
  resourceIds,
  details: details ?? null,
});

/**
 * Who did what to which records. Never stores secrets: callers pass ids, not
 * keys or tokens.
 */
@Injectable()
export class AuditService {
  constructor(
    private readonly entries: AuditRepository,
    private readonly reads: ReadAuditWriter,
    private readonly signals: OpsSignals,
  ) {}

  /** Writes inside the transaction of the change it records. */
  record(entry: AuditRecord, tx: Tx): Promise<void> {
    return this.signals.guard('audit', () => this.entries.insert(toNewEntry(entry), tx));
  }

  /** An entry that is the whole change (a recording played): its own statement on the pool. */
  recordStandalone(entry: AuditRecord): Promise<void> {
    return this.signals.guard('audit', () => this.entries.insertStandalone(toNewEntry(entry)));
  }

  /**
   * The audit entry of a read made with a key (calls, leads, transcripts),
   * outside any transaction: group-committed with other reads' entries, and
   * its commit does not wait for the WAL flush (read-audit-writer.ts).
   */
  recordRead(read: {
    orgId: string;
    keyId: string;
    action: string;
    resourceType: string;
    resourceIds: string[];
    details?: Record<string, unknown>;
  }): Promise<void> {
    return this.reads.write({
      org_id: read.orgId,
      key_id: read.keyId,
      action: read.action,
      resource_type: read.resourceType,
      resource_ids: read.resourceIds,
      details: read.details ?? null,
    });
  }

  async list(orgId: string, opts: { action?: string; limit?: number } = {}): Promise<AuditEntryView[]> {
    const rows = await this.entries.listForOrg(orgId, opts.action, opts.limit ?? 100);
    return rows.map((r) => ({
      at: r.at.toISOString(),
      actor_type: r.actorType,
      actor_id: r.actorId,
      action: r.action,
      resource_type: r.resourceType,
      resource_ids: r.resourceIds,
      details: r.details,
    }));
  }
}
