import { Module } from '@nestjs/common';
import { AccountModule } from '../account/index.js';
import { AuditModule } from '../audit/index.js';
import { AuthModule } from '../auth/index.js';
import { CallsController } from './calls.controller.js';
import { CallsRepository } from './calls.repository.js';
import { CallsService } from './calls.service.js';

@Module({
  imports: [AccountModule, AuditModule, AuthModule],
  controllers: [CallsController],
  providers: [CallsService, CallsRepository],
  exports: [CallsService],
})
export class CallsModule {}
