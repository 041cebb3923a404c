import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/index.js';
import { AuthModule } from '../auth/index.js';
import { CallsModule } from '../calls/index.js';
import { AppConfig } from '../config/app-config.js';
import { InternalRecordingsController } from './internal-recordings.controller.js';
import { RecordingLinksService } from './recording-links.service.js';
import { CallRecordingController, RecordingLinkController } from './recordings.controller.js';
import { RecordingsRepository } from './recordings.repository.js';
import { RecordingsService } from './recordings.service.js';
import { RecordingSweeper } from './recording-sweeper.js';
import { createRecordingStore } from './store/create-recording-store.js';
import { RECORDING_STORE } from './store/recording-store.js';
import { RecordingLinkEntity } from './entities/recording-link.entity.js';
import { RecordingEntity } from './entities/recording.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([RecordingEntity, RecordingLinkEntity]), CallsModule, AuthModule, AuditModule],
  controllers: [CallRecordingController, RecordingLinkController, InternalRecordingsController],
  providers: [
    { provide: RECORDING_STORE, useFactory: createRecordingStore, inject: [AppConfig] },
    RecordingsRepository,
    RecordingsService,
    RecordingLinksService,
    RecordingSweeper,
  ],
  exports: [RecordingsService, RecordingLinksService, RecordingSweeper, RECORDING_STORE],
})
export class RecordingsModule {}
