import { Module, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountModule } from '../account/index.js';
import { AuditModule } from '../audit/index.js';
import { AuthModule } from '../auth/index.js';
import { RetentionRunner } from '../common/retention/retention-runner.js';
import { CallsController } from './calls.controller.js';
import { CallsRepository } from './calls.repository.js';
import { CallsService } from './calls.service.js';
import { TEST_CALL_RETENTION_MS } from './call-rules.js';
import { CallReferenceEntity } from './entities/call-reference.entity.js';
import { CallEntity } from './entities/call.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([CallEntity, CallReferenceEntity]), AccountModule, AuditModule, AuthModule],
  controllers: [CallsController],
  providers: [CallsService, CallsRepository],
  exports: [CallsService],
})
export class CallsModule implements OnModuleInit {
  constructor(
    private readonly retention: RetentionRunner,
    private readonly calls: CallsService,
  ) {}

  /** Test-mode calls leave 30 days after they were made (a hundred a batch: each takes its transcript's turns with it). */
  onModuleInit(): void {
    this.retention.registerRows({
      name: 'test calls',
      maxAgeMs: TEST_CALL_RETENTION_MS,
      batchSize: 100,
      deleteBatch: (cutoff, limit) => this.calls.removeTestCallsMadeBefore(cutoff, limit),
    });
  }
}
