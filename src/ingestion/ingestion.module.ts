import { Module } from '@nestjs/common';
import { AccountModule } from '../account/index.js';
import { CallsModule } from '../calls/index.js';
import { EventsModule } from '../events/index.js';
import { LeadsModule } from '../leads/index.js';
import { TranscriptsModule } from '../transcripts/index.js';
import { IngestionController } from './ingestion.controller.js';
import { IngestionService } from './ingestion.service.js';

@Module({
  imports: [AccountModule, CallsModule, TranscriptsModule, LeadsModule, EventsModule],
  controllers: [IngestionController],
  providers: [IngestionService],
  exports: [IngestionService],
})
export class IngestionModule {}
