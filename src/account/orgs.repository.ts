import { Injectable } from '@nestjs/common';
import { PoolSql } from '../database/pool-sql.js';
import type { Tx } from '../database/sql.js';
import type { OrgsRow } from './account.tables.js';
import type { OrgRecord } from './org.js';

export type NewOrg = Pick<
  OrgRecord,
  'slug' | 'displayName' | 'status' | 'timezone' | 'vertical' | 'number' | 'ownerEmail' | 'paymentMethodOnFile'
>;

const toOrg = (r: OrgsRow): OrgRecord => ({
  id: r.id,
  slug: r.slug,
  displayName: r.display_name,
  status: r.status,
  timezone: r.timezone,
  vertical: r.vertical,
  plan: r.plan,
  billingStatus: r.billing_status,
  trialEndsAt: r.trial_ends_at,
  number: r.number,
  paymentMethodOnFile: r.payment_method_on_file,
  ownerEmail: r.owner_email,
  firstCallAt: r.first_call_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The `orgs` table. */
@Injectable()
export class OrgsRepository {
  constructor(private readonly sql: PoolSql) {}

  async insert(v: NewOrg): Promise<OrgRecord> {
    const [row] = await this.sql.query<OrgsRow>(
      `INSERT INTO orgs (slug, display_name, status, timezone, vertical, number, owner_email, payment_method_on_file)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
      [v.slug, v.displayName, v.status, v.timezone, v.vertical, v.number, v.ownerEmail, v.paymentMethodOnFile],
    );
    return toOrg(row);
  }

  /** Writes what the dashboard changes; first_call_at belongs to ingestion and created_at to the insert. */
  async save(org: OrgRecord): Promise<OrgRecord> {
    const [row] = await this.sql.query<OrgsRow>(
      `UPDATE orgs SET slug = $2, display_name = $3, status = $4, timezone = $5, vertical = $6, plan = $7, billing_status = $8,
                       trial_ends_at = $9, number = $10, payment_method_on_file = $11, owner_email = $12, updated_at = $13
        WHERE id = $1 RETURNING *`,
      [
        org.id,
        org.slug,
        org.displayName,
        org.status,
        org.timezone,
        org.vertical,
        org.plan,
        org.billingStatus,
        org.trialEndsAt,
        org.number,
        org.paymentMethodOnFile,
        org.ownerEmail,
        org.updatedAt,
      ],
    );
    return toOrg(row);
  }

  async findById(id: string): Promise<OrgRecord | null> {
    const rows = await this.sql.query<OrgsRow>('SELECT * FROM orgs WHERE id = $1', [id]);
    return rows[0] ? toOrg(rows[0]) : null;
  }

  async findBySlug(slug: string): Promise<OrgRecord | null> {
    const rows = await this.sql.query<OrgsRow>('SELECT * FROM orgs WHERE slug = $1', [slug]);
    return rows[0] ? toOrg(rows[0]) : null;
  }

  /** One indexed probe, not a listing (checked at every embedded start). */
  async anyExists(): Promise<boolean> {
    return (await this.sql.query<Pick<OrgsRow, 'id'>>('SELECT id FROM orgs LIMIT 1')).length > 0;
  }

  async slugTaken(slug: string): Promise<boolean> {
    return (await this.sql.query<Pick<OrgsRow, 'id'>>('SELECT id FROM orgs WHERE slug = $1', [slug])).length > 0;
  }

  async listByCreation(): Promise<OrgRecord[]> {
    return (await this.sql.query<OrgsRow>('SELECT * FROM orgs ORDER BY created_at ASC')).map(toOrg);
  }

  /** On every list and detail read: a prepared statement on the pool. */
  async timezoneOf(orgId: string): Promise<string | null> {
    const rows = await this.sql.prepared<Pick<OrgsRow, 'timezone'>>('org_timezone', 'SELECT timezone FROM orgs WHERE id = $1', [orgId]);
    return rows[0]?.timezone ?? null;
  }

  /** Row lock on the firm: serialises per-firm limits (active keys, endpoints) across processes. */
  async lockForUpdate(tx: Tx, orgId: string): Promise<void> {
    await tx.execute('SELECT 1 FROM orgs WHERE id = $1 FOR UPDATE', [orgId]);
  }

  /** Only the firm's first call writes. */
  async markCallReceived(tx: Tx, orgId: string, at: Date): Promise<void> {
    await tx.execute('UPDATE orgs SET first_call_at = $2 WHERE id = $1 AND first_call_at IS NULL', [orgId, at]);
  }
}
