import { Controller, Header, Headers } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Registry } from 'prom-client';
import { Endpoint, PUBLIC } from '../common/http/access.decorators.js';
import { MetricsService } from './metrics.service.js';

/** Prometheus scrape endpoint: outside /v1 and the public document; METRICS_TOKEN (Bearer) guards it when set. */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  // No API key: METRICS_TOKEN, when set, is checked by the service (the metrics port answers the same way).
  @Endpoint({ method: 'GET', access: PUBLIC, query: 'any' })
  @Header('content-type', Registry.PROMETHEUS_CONTENT_TYPE)
  scrape(@Headers('authorization') authorization?: string): Promise<string> {
    return this.metrics.scrape(authorization);
  }
}
