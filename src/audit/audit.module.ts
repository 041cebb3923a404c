import { Module } from '@nestjs/common';
import { AuditRepository } from './audit.repository.js';
import { AuditService } from './audit.service.js';
import { ReadAuditWriter } from './read-audit-writer.js';

@Module({
  providers: [AuditService, ReadAuditWriter, AuditRepository],
  exports: [AuditService],
})
export class AuditModule {}
