import { Query } from '@nestjs/common';
import { Endpoint, keyed, pathParam, type EndpointSpec, type OperationDoc } from '../common/http/access.decorators.js';
import { TaggedController } from '../common/http/openapi.decorators.js';
import { ApiEndpointDisabled } from './dto/endpoint-disabled.problem.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { PathParam } from '../common/http/route-input.js';
import { ListDeliveriesQueryDto, WebhookDeliveryAcceptedDto, WebhookDeliveryListDto, WebhookEndpointListDto } from './dto/webhook.dto.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';
import { MANUAL_SENDS_PER_MINUTE } from './webhook-rules.js';
import { EVENT_RETENTION_TEXT } from '../events/index.js';

/**
 * Test and redeliver: a POST on `:<id>/<verb>` that takes no body, answers 202 with the new delivery and is refused
 * while the endpoint is off.
 */
function sendNow(
  id: string,
  verb: string,
  idDoc: { description: string; example: string },
  op: OperationDoc,
  ok: string,
  notFound: string,
): EndpointSpec {
  return {
    method: 'POST',
    access: keyed('webhooks:test'),
    status: 202,
    problems: [400, 404, 413, 415],
    notFound,
    doc: [ApiEndpointDisabled()],
    path: `:${id}/${verb}`,
    params: { [id]: pathParam({ format: 'uuid', ...idDoc }) },
    op,
    ok: { type: WebhookDeliveryAcceptedDto, description: ok },
  };
}

const SEND_TEST: OperationDoc = {
  id: 'testWebhookEndpoint',
  summary: 'Send a webhook.test event to one endpoint',
  description: `Sends one webhook.test event to that endpoint regardless of its subscribed types; each call creates one new event and one new delivery, attempted once. At most ${MANUAL_SENDS_PER_MINUTE} tests and resends per endpoint per minute, then 429.`,
};

const REDELIVER: OperationDoc = {
  id: 'redeliverWebhookDelivery',
  summary: 'Send a delivery again, as a new delivery of the same event',
  description: `Creates one new delivery of the same event (same event id) to the same endpoint; the original is untouched. Shares the limit of ${MANUAL_SENDS_PER_MINUTE} per endpoint per minute with tests.`,
};

@TaggedController('Webhooks', 'v1/webhook-endpoints')
export class WebhookEndpointsController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly deliveries: WebhookDeliveriesService,
  ) {}

  @Endpoint({
    method: 'GET',
    access: keyed('webhooks:read'),
    op: {
      id: 'listWebhookEndpoints',
      summary: "List the firm's webhook endpoints, newest first",
      description:
        'Endpoints are added, changed and deleted in the dashboard; the signing secret is never returned, only its last 4 characters.',
    },
    ok: { type: WebhookEndpointListDto, description: 'Every endpoint of the firm.' },
    problems: [400],
  })
  async list(@CurrentPrincipal() principal: ApiPrincipal): Promise<WebhookEndpointListDto> {
    return { endpoints: await this.endpoints.list(principal.orgId, principal.livemode) };
  }

  @Endpoint(
    sendNow(
      'endpoint_id',
      'test',
      { description: 'The endpoint id.', example: '0b9c6f43-5d1e-4c8a-9f2b-7e3d1a6c5b40' },
      SEND_TEST,
      'One new webhook.test event and its pending delivery.',
      'The webhook endpoint was not found.',
    ),
  )
  async test(
    @CurrentPrincipal() principal: ApiPrincipal,
    @PathParam('endpoint_id') endpointId: string,
  ): Promise<WebhookDeliveryAcceptedDto> {
    return { delivery: await this.deliveries.sendTest(principal, endpointId) };
  }
}

@TaggedController('Webhooks', 'v1/webhook-deliveries')
export class WebhookDeliveriesController {
  constructor(private readonly deliveries: WebhookDeliveriesService) {}

  @Endpoint({
    method: 'GET',
    access: keyed('webhooks:read'),
    query: ListDeliveriesQueryDto,
    op: {
      id: 'listWebhookDeliveries',
      summary: 'List webhook deliveries, newest first',
      description: `Deliveries of the last ${EVENT_RETENTION_TEXT}, newest first, each with its attempts.`,
    },
    ok: { type: WebhookDeliveryListDto, description: 'One page of deliveries and the cursor to the next.' },
    problems: [400],
  })
  list(@CurrentPrincipal() principal: ApiPrincipal, @Query() query: ListDeliveriesQueryDto): Promise<WebhookDeliveryListDto> {
    return this.deliveries.list(principal, query);
  }

  @Endpoint(
    sendNow(
      'delivery_id',
      'redeliver',
      { description: 'The delivery id.', example: '6a1f0d2c-3b4e-4f5a-8c9d-0e1f2a3b4c5d' },
      REDELIVER,
      'The new delivery (trigger redelivery), pending; the original is untouched.',
      'The webhook delivery was not found.',
    ),
  )
  async redeliver(
    @CurrentPrincipal() principal: ApiPrincipal,
    @PathParam('delivery_id') deliveryId: string,
  ): Promise<WebhookDeliveryAcceptedDto> {
    return { delivery: await this.deliveries.redeliver(principal, deliveryId) };
  }
}
