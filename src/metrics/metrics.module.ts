import { Module } from '@nestjs/common';
import { EventsModule } from '../events/index.js';
import { WebhooksModule } from '../webhooks/index.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsServer } from './metrics-server.js';
import { MetricsService } from './metrics.service.js';

@Module({
  imports: [WebhooksModule, EventsModule],
  controllers: [MetricsController],
  providers: [MetricsService, MetricsServer],
  exports: [MetricsService],
})
export class MetricsModule {}
