export { WebhooksModule, WebhooksWorkerModule } from './webhooks.module.js';
export { WebhookEndpointsService, MAX_ENDPOINTS_PER_FIRM, DEFAULT_ROTATION_OVERLAP_MS } from './webhook-endpoints.service.js';
export type { CreateEndpointInput, RotatedSecret } from './webhook-endpoints.service.js';
export { WebhookDeliveriesService, TEST_EVENT_MESSAGE } from './webhook-deliveries.service.js';
export { DeliveryDispatcher } from './delivery-dispatcher.service.js';
export { WebhookMetrics, ATTEMPT_OUTCOMES } from './webhook-metrics.js';
export { sign, signingKey, webhookHeaders } from './signing.js';
export type { WebhookEndpointDto, WebhookDeliveryDto } from './dto/webhook.dto.js';
