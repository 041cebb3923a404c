import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountModule } from '../account/index.js';
import { AuditModule } from '../audit/index.js';
import { AuthModule } from '../auth/index.js';
import { CallsController } from './calls.controller.js';
import { CallsRepository } from './calls.repository.js';
import { CallsService } from './calls.service.js';
import { CallReferenceEntity } from './entities/call-reference.entity.js';
import { CallEntity } from './entities/call.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([CallEntity, CallReferenceEntity]), AccountModule, AuditModule, AuthModule],
  controllers: [CallsController],
  providers: [CallsService, CallsRepository],
  exports: [CallsService],
})
export class CallsModule {}
