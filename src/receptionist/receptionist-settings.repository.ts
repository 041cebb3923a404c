import { Injectable } from '@nestjs/common';
import { PoolSql } from '../database/pool-sql.js';
import type { Camelized } from '../database/tables.js';
import type { ReceptionistSettingsRow } from './receptionist.tables.js';

/** A firm's settings as the service holds them: the row, named in camelCase. */
export type ReceptionistSettings = Camelized<ReceptionistSettingsRow>;

/** The `receptionist_settings` table: one row per firm, the published document and a draft. */
@Injectable()
export class ReceptionistSettingsRepository {
  constructor(private readonly sql: PoolSql) {}

  async findByOrg(orgId: string): Promise<ReceptionistSettings | null> {
    const [r] = await this.sql.query<ReceptionistSettingsRow>('SELECT * FROM receptionist_settings WHERE org_id = $1', [orgId]);
    if (!r) return null;
    return {
      orgId: r.org_id,
      published: r.published,
      version: r.version,
      publishedAt: r.published_at,
      draft: r.draft,
      draftUpdatedAt: r.draft_updated_at,
    };
  }

  /** The whole row, inserted or replaced. */
  async save(s: ReceptionistSettings): Promise<void> {
    await this.sql.execute(
      `INSERT INTO receptionist_settings (org_id, published, version, published_at, draft, draft_updated_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (org_id) DO UPDATE SET published = EXCLUDED.published, version = EXCLUDED.version,
         published_at = EXCLUDED.published_at, draft = EXCLUDED.draft, draft_updated_at = EXCLUDED.draft_updated_at`,
      [
        s.orgId,
        s.published === null ? null : JSON.stringify(s.published),
        s.version,
        s.publishedAt,
        s.draft === null ? null : JSON.stringify(s.draft),
        s.draftUpdatedAt,
      ],
    );
  }
}
