import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { ReceptionistSettingsEntity } from './entities/receptionist-settings.entity.js';

/** The `receptionist_settings` table: one row per firm, the published document and a draft (TypeORM's repository). */
@Injectable()
export class ReceptionistSettingsRepository {
  constructor(@InjectRepository(ReceptionistSettingsEntity) private readonly settings: Repository<ReceptionistSettingsEntity>) {}

  findByOrg(orgId: string): Promise<ReceptionistSettingsEntity | null> {
    return this.settings.findOneBy({ orgId });
  }

  /** The whole row, inserted or replaced. */
  async save(s: ReceptionistSettingsEntity): Promise<void> {
    await this.settings.upsert(s, ['orgId']);
  }
}
