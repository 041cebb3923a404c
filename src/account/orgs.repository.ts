import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { PoolSql } from '../database/pool-sql.js';
import { OrgEntity } from './entities/org.entity.js';

export type NewOrg = Pick<
  OrgEntity,
  'slug' | 'displayName' | 'status' | 'timezone' | 'vertical' | 'number' | 'ownerEmail' | 'paymentMethodOnFile'
>;

/** The `orgs` table. */
@Injectable()
export class OrgsRepository {
  constructor(
    @InjectRepository(OrgEntity) private readonly orgs: Repository<OrgEntity>,
    private readonly sql: PoolSql,
  ) {}

  insert(values: NewOrg): Promise<OrgEntity> {
    return this.orgs.save(this.orgs.create(values));
  }

  save(org: OrgEntity): Promise<OrgEntity> {
    return this.orgs.save(org);
  }

  findById(id: string): Promise<OrgEntity | null> {
    return this.orgs.findOneBy({ id });
  }

  findBySlug(slug: string): Promise<OrgEntity | null> {
    return this.orgs.findOneBy({ slug });
  }

  /** One indexed probe, not a listing (checked at every embedded start). */
  anyExists(): Promise<boolean> {
    return this.orgs.exists();
  }

  slugTaken(slug: string): Promise<boolean> {
    return this.orgs.existsBy({ slug });
  }

  listByCreation(): Promise<OrgEntity[]> {
    return this.orgs.find({ order: { createdAt: 'ASC' } });
  }

  /** On every list and detail read: a prepared statement on the pool (a TypeORM findOne costs several times the CPU). */
  async timezoneOf(orgId: string): Promise<string | null> {
    const rows = await this.sql.prepared<{ timezone: string }>('org_timezone', 'SELECT timezone FROM orgs WHERE id = $1', [orgId]);
    return rows[0]?.timezone ?? null;
  }

  /** Row lock on the firm: serialises per-firm limits (active keys, endpoints) across processes. */
  async lockForUpdate(manager: EntityManager, orgId: string): Promise<void> {
    await manager.query('SELECT 1 FROM orgs WHERE id = $1 FOR UPDATE', [orgId]);
  }

  /** Only the firm's first call writes. */
  async markCallReceived(manager: EntityManager, orgId: string, at: Date): Promise<void> {
    await manager.query('UPDATE orgs SET first_call_at = $2 WHERE id = $1 AND first_call_at IS NULL', [orgId, at]);
  }
}
