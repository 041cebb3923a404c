import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { NoQueryDto } from '../common/validation/no-query.dto.js';
import { RequireScope } from '../common/http/access.decorators.js';
import { ApiConflict, ApiProblems } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { ListDeliveriesQueryDto, WebhookDeliveryAcceptedDto, WebhookDeliveryListDto, WebhookEndpointListDto } from './dto/webhook.dto.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';

@ApiTags('Webhooks')
@Controller('v1/webhook-endpoints')
export class WebhookEndpointsController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly deliveries: WebhookDeliveriesService,
  ) {}

  @Get()
  @RequireScope('webhooks:read', "List the firm's webhook endpoints, newest first")
  @ApiOkResponse({ type: WebhookEndpointListDto })
  @ApiProblems(400)
  async list(@CurrentPrincipal() principal: ApiPrincipal, @Query() _query: NoQueryDto): Promise<WebhookEndpointListDto> {
    return { endpoints: await this.endpoints.list(principal.orgId) };
  }

  @Post(':endpoint_id/test')
  @HttpCode(202)
  @RequireScope('webhooks:test', 'Send a webhook.test event to one endpoint')
  @ApiParam({ name: 'endpoint_id', format: 'uuid' })
  @ApiAcceptedResponse({ type: WebhookDeliveryAcceptedDto, description: 'One new webhook.test event and its pending delivery.' })
  @ApiProblems(400, 404)
  @ApiConflict('The endpoint is turned off (`endpoint_disabled`).')
  async test(@CurrentPrincipal() principal: ApiPrincipal, @Param('endpoint_id') endpointId: string): Promise<WebhookDeliveryAcceptedDto> {
    return { delivery: await this.deliveries.sendTest(principal.orgId, endpointId) };
  }
}

@ApiTags('Webhooks')
@Controller('v1/webhook-deliveries')
export class WebhookDeliveriesController {
  constructor(private readonly deliveries: WebhookDeliveriesService) {}

  @Get()
  @RequireScope('webhooks:read', 'List webhook deliveries, newest first')
  @ApiOkResponse({ type: WebhookDeliveryListDto })
  @ApiProblems(400)
  list(@CurrentPrincipal() principal: ApiPrincipal, @Query() query: ListDeliveriesQueryDto): Promise<WebhookDeliveryListDto> {
    return this.deliveries.list(principal.orgId, query);
  }

  @Post(':delivery_id/redeliver')
  @HttpCode(202)
  @RequireScope('webhooks:test', 'Send a delivery again, as a new delivery of the same event')
  @ApiParam({ name: 'delivery_id', format: 'uuid' })
  @ApiAcceptedResponse({
    type: WebhookDeliveryAcceptedDto,
    description: 'The new delivery (trigger redelivery), pending; the original is untouched.',
  })
  @ApiProblems(400, 404)
  @ApiConflict('The endpoint is turned off (`endpoint_disabled`).')
  async redeliver(
    @CurrentPrincipal() principal: ApiPrincipal,
    @Param('delivery_id') deliveryId: string,
  ): Promise<WebhookDeliveryAcceptedDto> {
    return { delivery: await this.deliveries.redeliver(principal.orgId, deliveryId) };
  }
}
