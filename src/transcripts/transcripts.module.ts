import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/index.js';
import { CallsModule } from '../calls/index.js';
import { TranscriptsController } from './transcripts.controller.js';
import { TranscriptsRepository } from './transcripts.repository.js';
import { TranscriptsService } from './transcripts.service.js';

@Module({
  imports: [CallsModule, AuditModule],
  controllers: [TranscriptsController],
  providers: [TranscriptsService, TranscriptsRepository],
  exports: [TranscriptsService],
})
export class TranscriptsModule {}
