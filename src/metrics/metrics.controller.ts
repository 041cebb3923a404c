import { Controller, Get, Header, Headers } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { requireBearerToken } from '../auth/index.js';
import { PublicRoute } from '../common/http/access.decorators.js';
import { AppConfig } from '../config/app-config.js';
import { MetricsService } from './metrics.service.js';

/** Prometheus scrape endpoint: outside /v1 and the public document; METRICS_TOKEN (Bearer) guards it when set. */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @PublicRoute()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(@Headers('authorization') authorization?: string): Promise<string> {
    if (this.config.metricsToken) requireBearerToken(this.config.metricsToken, authorization, 'METRICS_TOKEN');
    return this.metrics.registry.metrics();
  }
}
