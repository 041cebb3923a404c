import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Endpoint, PUBLIC } from '../common/http/access.decorators.js';
import { TaggedController } from '../common/http/openapi.decorators.js';
import { ReplicationHealth } from './replication.health.js';

@ApiSchema({ description: 'Liveness of the API.' })
class HealthDto {
  @ApiProperty({ description: 'Always true while the API serves requests.', example: true }) ok: boolean;
}

@TaggedController('Health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly replication: ReplicationHealth,
  ) {}

  /** Liveness for integrators: reads no firm data and needs no key. */
  @Endpoint({
    method: 'GET',
    path: 'v1/health',
    access: PUBLIC,
    // No parameters, so any is refused like on every other route; probes that add their own use /health/ready.
    op: {
      id: 'getHealth',
      summary: 'Check that the API is serving',
      description:
        'Needs no key and reads no firm data. Takes no parameters: like every operation, it refuses one it does not list (400). ' +
        "A load balancer's or monitor's probe that adds its own parameters (cache busters) can use `GET /health/ready` instead, " +
        'which ignores them and also answers 503 while the database cannot be reached.',
    },
    ok: { type: HealthDto, description: 'The API is serving.' },
    // 503 while the process drains on SIGTERM (a request that still reaches it): retry on a new connection.
    problems: [400, 503],
  })
  live(): HealthDto {
    return { ok: true };
  }

  /**
   * Readiness for orchestrators: 503 while PostgreSQL is unreachable (or on an older history than this process has
   * seen); `replication` says how durable a commit is. Not part of the public API.
   */
  @Endpoint({ method: 'GET', path: 'health/ready', access: PUBLIC, query: 'any', quietLog: true })
  @HealthCheck()
  ready() {
    return this.health.check([() => this.db.pingCheck('database', { timeout: 1500 }), () => this.replication.check()]);
  }
}
