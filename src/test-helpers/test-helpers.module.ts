import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/index.js';
import { CallsModule } from '../calls/index.js';
import { IngestionModule } from '../ingestion/index.js';
import { RecordingsModule } from '../recordings/index.js';
import { TestHelpersController } from './test-helpers.controller.js';
import { TestHelperBudget } from './test-helper-budget.js';
import { TestHelpersService } from './test-helpers.service.js';

/** POST /v1/test-helpers/...: test-mode calls through the pipeline's own port. */
@Module({
  imports: [AuthModule, CallsModule, IngestionModule, RecordingsModule],
  controllers: [TestHelpersController],
  providers: [TestHelpersService, TestHelperBudget],
})
export class TestHelpersModule {}
