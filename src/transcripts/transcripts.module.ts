import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/index.js';
import { CallsModule } from '../calls/index.js';
import { TranscriptsController } from './transcripts.controller.js';
import { TranscriptsRepository } from './transcripts.repository.js';
import { TranscriptsService } from './transcripts.service.js';
import { TranscriptTurnEntity } from './entities/transcript-turn.entity.js';
import { TranscriptEntity } from './entities/transcript.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([TranscriptEntity, TranscriptTurnEntity]), CallsModule, AuditModule],
  controllers: [TranscriptsController],
  providers: [TranscriptsService, TranscriptsRepository],
  exports: [TranscriptsService],
})
export class TranscriptsModule {}
