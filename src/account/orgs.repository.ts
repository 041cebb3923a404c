import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, type Repository } from 'typeorm';
import { columns } from '../database/columns.js';
import { DummyValue, GenerateSql } from '../database/generate-sql.js';
import { selectList } from '../database/select-list.js';
import { Database, type Tx } from '../database/sql.js';
import { OrgEntity } from './entities/org.entity.js';

export type NewOrg = Pick<
  OrgEntity,
  'slug' | 'displayName' | 'status' | 'timezone' | 'vertical' | 'number' | 'ownerEmail' | 'paymentMethodOnFile'
>;

const TIMEZONE = selectList(OrgEntity, null, ['timezone']);
const col = columns(OrgEntity);

/** The `orgs` table: the dashboard's changes through TypeORM's repository; the timezone lookup of reads written out. */
@Injectable()
export class OrgsRepository {
  constructor(
    @InjectRepository(OrgEntity) private readonly orgs: Repository<OrgEntity>,
    private readonly db: Database,
  ) {}

  async insert(v: NewOrg): Promise<OrgEntity> {
    const { identifiers } = await this.orgs.insert(v);
    return this.orgs.findOneByOrFail({ id: (identifiers[0] as Pick<OrgEntity, 'id'>).id });
  }

  /** Writes what the dashboard changes; first_call_at belongs to ingestion and created_at to the insert. */
  async save(org: OrgEntity): Promise<OrgEntity> {
    const { id, firstCallAt: _ingestion, createdAt: _insert, ...changes } = org;
    await this.orgs.update({ id }, changes);
    return this.orgs.findOneByOrFail({ id });
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

  /** The firm's timezone (PATCH's answer): a prepared statement on the pool. */
  @GenerateSql({ params: [DummyValue.UUID] })
  async timezoneOf(orgId: string): Promise<string | null> {
    const [row] = await this.db.prepared('org_timezone', TIMEZONE, `SELECT ${TIMEZONE} FROM orgs WHERE ${col.id} = $1`, [orgId]);
    return row?.timezone ?? null;
  }

  /** Row lock on the firm: serialises per-firm limits (active keys, endpoints) across processes. */
  async lockForUpdate(tx: Tx, orgId: string): Promise<void> {
    await tx.getRepository(OrgEntity).findOne({ select: { id: true }, where: { id: orgId }, lock: { mode: 'pessimistic_write' } });
  }

  /** Only the firm's first call writes. */
  async markCallReceived(tx: Tx, orgId: string, at: Date): Promise<void> {
    await tx.getRepository(OrgEntity).update({ id: orgId, firstCallAt: IsNull() }, { firstCallAt: at });
  }
}
