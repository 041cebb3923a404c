import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountModule } from '../account/index.js';
import { AuditModule } from '../audit/index.js';
import { AuthModule } from '../auth/index.js';
import { CallsModule } from '../calls/index.js';
import { LeadsController } from './leads.controller.js';
import { LeadsRepository } from './leads.repository.js';
import { LeadWritesService } from './lead-writes.service.js';
import { LeadsService } from './leads.service.js';
import { LeadEntity } from './entities/lead.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([LeadEntity]), AccountModule, AuditModule, AuthModule, CallsModule],
  controllers: [LeadsController],
  providers: [LeadsService, LeadWritesService, LeadsRepository],
  exports: [LeadsService, LeadWritesService],
})
export class LeadsModule {}
