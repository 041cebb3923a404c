import { Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiParam } from '@nestjs/swagger';
import { NoQueryDto } from '../common/validation/no-query.dto.js';
import { RequireScope } from '../common/http/access.decorators.js';
import { ApiEndpointDisabled, ApiProblems, TaggedController } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { ListDeliveriesQueryDto, WebhookDeliveryAcceptedDto, WebhookDeliveryListDto, WebhookEndpointListDto } from './dto/webhook.dto.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';

@TaggedController('Webhooks', 'v1/webhook-endpoints')
export class WebhookEndpointsController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly deliveries: WebhookDeliveriesService,
  ) {}

  @Get()
  @RequireScope('webhooks:read', {
    id: 'listWebhookEndpoints',
    summary: "List the firm's webhook endpoints, newest first",
    description:
      'Endpoints are added, changed and deleted in the dashboard; the signing secret is never returned, only its last 4 characters.',
  })
  @ApiOkResponse({ type: WebhookEndpointListDto, description: 'Every endpoint of the firm.' })
  @ApiProblems(400)
  async list(@CurrentPrincipal() principal: ApiPrincipal, @Query() _query: NoQueryDto): Promise<WebhookEndpointListDto> {
    return { endpoints: await this.endpoints.list(principal.orgId) };
  }

  @Post(':endpoint_id/test')
  @HttpCode(202)
  @RequireScope('webhooks:test', {
    id: 'testWebhookEndpoint',
    summary: 'Send a webhook.test event to one endpoint',
    description:
      'Sends one webhook.test event to that endpoint regardless of its subscribed types; each call creates one new event and one new delivery, attempted once. At most 5 tests and resends per endpoint per minute, then 429.',
  })
  @ApiParam({ name: 'endpoint_id', format: 'uuid', description: 'The endpoint id.', example: '0b9c6f43-5d1e-4c8a-9f2b-7e3d1a6c5b40' })
  @ApiAcceptedResponse({ type: WebhookDeliveryAcceptedDto, description: 'One new webhook.test event and its pending delivery.' })
  @ApiProblems(400, 404, 413, 415)
  @ApiEndpointDisabled()
  async test(
    @CurrentPrincipal() principal: ApiPrincipal,
    @Param('endpoint_id') endpointId: string,
    @Query() _query: NoQueryDto,
  ): Promise<WebhookDeliveryAcceptedDto> {
    return { delivery: await this.deliveries.sendTest(principal.orgId, endpointId) };
  }
}

@TaggedController('Webhooks', 'v1/webhook-deliveries')
export class WebhookDeliveriesController {
  constructor(private readonly deliveries: WebhookDeliveriesService) {}

  @Get()
  @RequireScope('webhooks:read', {
    id: 'listWebhookDeliveries',
    summary: 'List webhook deliveries, newest first',
    description: 'Deliveries of the last 30 days, newest first, each with its attempts.',
  })
  @ApiOkResponse({ type: WebhookDeliveryListDto, description: 'One page of deliveries and the cursor to the next.' })
  @ApiProblems(400)
  list(@CurrentPrincipal() principal: ApiPrincipal, @Query() query: ListDeliveriesQueryDto): Promise<WebhookDeliveryListDto> {
    return this.deliveries.list(principal.orgId, query);
  }

  @Post(':delivery_id/redeliver')
  @HttpCode(202)
  @RequireScope('webhooks:test', {
    id: 'redeliverWebhookDelivery',
    summary: 'Send a delivery again, as a new delivery of the same event',
    description:
      'Creates one new delivery of the same event (same event id) to the same endpoint; the original is untouched. Shares the limit of 5 per endpoint per minute with tests.',
  })
  @ApiParam({ name: 'delivery_id', format: 'uuid', description: 'The delivery id.', example: '6a1f0d2c-3b4e-4f5a-8c9d-0e1f2a3b4c5d' })
  @ApiAcceptedResponse({
    type: WebhookDeliveryAcceptedDto,
    description: 'The new delivery (trigger redelivery), pending; the original is untouched.',
  })
  @ApiProblems(400, 404, 413, 415)
  @ApiEndpointDisabled()
  async redeliver(
    @CurrentPrincipal() principal: ApiPrincipal,
    @Param('delivery_id') deliveryId: string,
    @Query() _query: NoQueryDto,
  ): Promise<WebhookDeliveryAcceptedDto> {
    return { delivery: await this.deliveries.redeliver(principal.orgId, deliveryId) };
  }
}
