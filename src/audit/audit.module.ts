import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditService } from './audit.service.js';
import { ReadAuditWriter } from './read-audit-writer.js';
import { AuditEntryEntity } from './entities/audit-entry.entity.js';

@Module({ imports: [TypeOrmModule.forFeature([AuditEntryEntity])], providers: [AuditService, ReadAuditWriter], exports: [AuditService] })
export class AuditModule {}
