import { Module } from '@nestjs/common';
import { join } from 'node:path';
import { AuditModule } from '../audit/index.js';
import { AuthModule } from '../auth/index.js';
import { CallsModule } from '../calls/index.js';
import { AppConfig } from '../config/app-config.js';
import { InternalRecordingsController } from './internal-recordings.controller.js';
import { RecordingLinksService } from './recording-links.service.js';
import { CallRecordingController, RecordingLinkController } from './recordings.controller.js';
import { RecordingsRepository } from './recordings.repository.js';
import { RecordingsService } from './recordings.service.js';
import { FilesystemRecordingStore } from './store/filesystem-recording-store.js';
import { RECORDING_STORE } from './store/recording-store.js';

@Module({
  imports: [CallsModule, AuthModule, AuditModule],
  controllers: [CallRecordingController, RecordingLinkController, InternalRecordingsController],
  providers: [
    // The one place that picks the store; an object store is another factory branch here.
    {
      provide: RECORDING_STORE,
      useFactory: (config: AppConfig) => new FilesystemRecordingStore(join(config.dataDir, 'recordings')),
      inject: [AppConfig],
    },
    RecordingsRepository,
    RecordingsService,
    RecordingLinksService,
  ],
  exports: [RecordingsService, RecordingLinksService, RECORDING_STORE],
})
export class RecordingsModule {}
