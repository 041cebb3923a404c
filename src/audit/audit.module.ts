import { Module, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RetentionRunner } from '../common/retention/retention-runner.js';
import { AppConfig } from '../config/app-config.js';
import { AuditRepository } from './audit.repository.js';
import { AuditService } from './audit.service.js';
import { ReadAuditWriter } from './read-audit-writer.js';
import { AuditLogEntity } from './entities/audit-log.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([AuditLogEntity])],
  providers: [AuditService, ReadAuditWriter, AuditRepository],
  exports: [AuditService],
})
export class AuditModule implements OnModuleInit {
  constructor(
    private readonly retention: RetentionRunner,
    private readonly config: AppConfig,
  ) {}

  /** Kept for ever unless AUDIT_RETENTION says how long; its day partitions are made ahead either way. */
  onModuleInit(): void {
    this.retention.register({ table: 'audit_log', maxAgeMs: this.config.auditRetentionMs });
  }
}
