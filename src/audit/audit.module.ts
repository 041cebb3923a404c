import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditRepository } from './audit.repository.js';
import { AuditService } from './audit.service.js';
import { ReadAuditWriter } from './read-audit-writer.js';
import { AuditEntryEntity } from './entities/audit-entry.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([AuditEntryEntity])],
  providers: [AuditService, ReadAuditWriter, AuditRepository],
  exports: [AuditService],
})
export class AuditModule {}
