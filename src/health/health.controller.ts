import { Controller, Get } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { PublicRoute } from '../common/http/access.decorators.js';

class HealthDto {
  @ApiProperty({ description: 'Always true while the API serves requests.' }) ok: boolean;
}

@ApiTags('Health')
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
  ) {}

  /** Liveness for integrators: reads no firm data and needs no key. */
  @Get('v1/health')
  @PublicRoute('Check that the API is serving')
  @ApiOkResponse({ type: HealthDto })
  live(): HealthDto {
    return { ok: true };
  }

  /** Readiness for orchestrators: 503 while PostgreSQL is unreachable. Not part of the public API. */
  @Get('health/ready')
  @PublicRoute()
  @ApiExcludeEndpoint()
  @HealthCheck()
  ready() {
    return this.health.check([() => this.db.pingCheck('database', { timeout: 1500 })]);
  }
}
