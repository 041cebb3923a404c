import { Controller, Get, Header, Headers } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { createHash, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '../common/errors/problems.js';
import { PublicRoute } from '../common/http/access.decorators.js';
import { AppConfig } from '../config/app-config.js';
import { MetricsService } from './metrics.service.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

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
    const token = this.config.metricsToken;
    if (token) {
      const given = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1] ?? '';
      if (!timingSafeEqual(digest(given), digest(token))) throw new UnauthorizedError('Send METRICS_TOKEN as a bearer token.');
    }
    return this.metrics.registry.metrics();
  }
}
