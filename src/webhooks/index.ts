export { WebhooksModule, WebhooksWorkerModule } from './webhooks.module.js';
export { WebhookEndpointsService, MAX_ENDPOINTS_PER_FIRM, DEFAULT_ROTATION_OVERLAP_MS } from './webhook-endpoints.service.js';
export type { CreateEndpointInput, EndpointActor, RotatedSecret } from './webhook-endpoints.service.js';
export { WebhookDeliveriesService, TEST_EVENT_MESSAGE, MANUAL_SENDS_PER_MINUTE } from './webhook-deliveries.service.js';
export type { HourlyDeliveries } from './webhook-deliveries.service.js';
export { DeliveryDispatcher } from './delivery-dispatcher.service.js';
export { WebhookMetrics, ATTEMPT_OUTCOMES } from './webhook-metrics.js';
export { sign, signingKey, webhookHeaders } from './signing.js';
export type { WebhookEndpointDto, WebhookDeliveryDto } from './dto/webhook.dto.js';
