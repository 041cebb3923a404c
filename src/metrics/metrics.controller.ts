import { Controller, Get, Header, Headers } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Registry } from 'prom-client';
import { PublicRoute } from '../common/http/access.decorators.js';
import { MetricsService } from './metrics.service.js';

/** Prometheus scrape endpoint: outside /v1 and the public document; METRICS_TOKEN (Bearer) guards it when set. */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @PublicRoute()
  @Header('content-type', Registry.PROMETHEUS_CONTENT_TYPE)
  scrape(@Headers('authorization') authorization?: string): Promise<string> {
    return this.metrics.scrape(authorization);
  }
}
