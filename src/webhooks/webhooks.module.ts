import { Module, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountModule } from '../account/index.js';
import { AuditModule } from '../audit/index.js';
import { RetentionRunner } from '../common/retention/retention-runner.js';
import { AppConfig } from '../config/app-config.js';
import { EVENT_RETENTION_MS, EventsModule } from '../events/index.js';
import { MailModule } from '../mail/index.js';
import { DeliveryAttempt } from './delivery-attempt.js';
import { DeliveryClaimsRepository } from './delivery-claims.repository.js';
import { DeliveryDispatcher } from './delivery-dispatcher.service.js';
import { DeliveryHistoryRepository } from './delivery-history.repository.js';
import { DeliveryHistoryService } from './delivery-history.service.js';
import { DeliveryRecorder } from './delivery-recorder.js';
import { EndpointEvents } from './endpoint-events.js';
import { SecretBox } from './secret-box.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';
import { WebhookEndpointUpdatesService } from './webhook-endpoint-updates.service.js';
import { WebhookFanOut } from './webhook-fan-out.service.js';
import { WebhookMetrics } from './webhook-metrics.js';
import { WebhookDeliveriesController, WebhookEndpointsController } from './webhooks.controller.js';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity.js';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity.js';
import { WebhookPendingDeliveryEntity } from './entities/webhook-pending-delivery.entity.js';

/** Endpoints, deliveries, fan-out and the API (every role, the CLI included). */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookEndpointEntity, WebhookDeliveryEntity, WebhookPendingDeliveryEntity]),
    AccountModule,
    AuditModule,
    EventsModule,
    MailModule,
  ],
  controllers: [WebhookEndpointsController, WebhookDeliveriesController],
  providers: [
    { provide: SecretBox, useFactory: (config: AppConfig) => new SecretBox(config.webhookSecretKey), inject: [AppConfig] },
    WebhookEndpointsRepository,
    WebhookDeliveriesRepository,
    DeliveryHistoryRepository,
    WebhookEndpointsService,
    WebhookEndpointUpdatesService,
    WebhookDeliveriesService,
    DeliveryHistoryService,
    WebhookFanOut,
    WebhookMetrics,
    EndpointEvents,
  ],
  exports: [
    EndpointEvents,
    WebhookEndpointsService,
    WebhookEndpointUpdatesService,
    WebhookDeliveriesService,
    DeliveryHistoryService,
    WebhookMetrics,
    WebhookEndpointsRepository,
    WebhookDeliveriesRepository,
    SecretBox,
  ],
})
export class WebhooksModule implements OnModuleInit {
  constructor(private readonly retention: RetentionRunner) {}

  /**
   * Deliveries are kept 30 days from their own creation (the spec's delivery retention), by day partitions like
   * events: one made with its event goes with it; a redelivery made later outlives its event by that much.
   */
  onModuleInit(): void {
    this.retention.register({ table: 'webhook_deliveries', maxAgeMs: EVENT_RETENTION_MS });
  }
}

/** The dispatcher: the HTTP/worker app only (it starts for ROLE all or worker), never the CLI. */
@Module({
  imports: [WebhooksModule, AccountModule, EventsModule, MailModule],
  providers: [DeliveryDispatcher, DeliveryAttempt, DeliveryRecorder, DeliveryClaimsRepository],
  exports: [DeliveryDispatcher],
})
export class WebhooksWorkerModule {}
