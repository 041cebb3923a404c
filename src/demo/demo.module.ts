import { Module } from '@nestjs/common';
import { AccountModule } from '../account/index.js';
import { AuthModule } from '../auth/index.js';
import { IngestionModule } from '../ingestion/index.js';
import { LeadsModule } from '../leads/index.js';
import { ReceptionistModule } from '../receptionist/index.js';
import { RecordingsModule } from '../recordings/index.js';
import { DemoService } from './demo.service.js';

@Module({
  imports: [AccountModule, AuthModule, ReceptionistModule, IngestionModule, LeadsModule, RecordingsModule],
  providers: [DemoService],
  exports: [DemoService],
})
export class DemoModule {}
