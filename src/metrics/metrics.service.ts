import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { declarationOf } from '../common/http/route-declaration.js';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { requireBearerToken } from '../auth/index.js';
import { AppConfig } from '../config/app-config.js';
import { Replication } from '../database/replication.js';
import { Database } from '../database/sql.js';
import { replicationGauges } from './replication-gauges.js';
import { OpsSignals } from '../common/ops/ops-signals.js';
import { DatabaseOutage } from '../common/ops/database-outage.js';
import { EventWaits, StandbyHorizon } from '../events/index.js';
import { WebhookMetrics } from '../webhooks/index.js';

/** The Prometheus series of one process; a registry of its own, so several apps in one process do not collide. */
@Injectable()
export class MetricsService implements OnModuleInit {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route template and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route template and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: AppConfig,
    db: Database,
    webhooks: WebhookMetrics,
    signals: OpsSignals,
    outage: DatabaseOutage,
    waits: EventWaits,
    horizon: StandbyHorizon,
    replication: Replication,
  ) {
    const replicationMetrics = replicationGauges(replication, new Logger('Metrics'));
    for (const metric of [...webhooks.metrics, ...signals.metrics, ...outage.metrics, ...horizon.metrics, ...replicationMetrics])
      this.registry.registerMetric(metric);
    new Gauge({
      name: 'db_pool_connections',
      help: 'Database pool connections by state (max: the pool size limit; total, idle; waiting: clients queued for one).',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const stats = db.poolStats();
        this.set({ state: 'max' }, stats.max);
        this.set({ state: 'total' }, stats.total);
        this.set({ state: 'idle' }, stats.idle);
        this.set({ state: 'waiting' }, stats.waiting);
      },
    });
    new Gauge({
      name: 'events_waiting_requests',
      help: 'Requests waiting now on GET /v1/events?wait= in this process (each holds a connection, no database work).',
      registers: [this.registry],
      collect() {
        this.set(waits.waiting);
      },
    });
  }

  /**
   * What a scrape answers, on the API port and on METRICS_PORT alike: METRICS_TOKEN checked when set (throws
   * UnauthorizedError), then the text, in Registry.PROMETHEUS_CONTENT_TYPE.
   */
  scrape(authorization: string | undefined): Promise<string> {
    if (this.config.metricsToken) requireBearerToken(this.config.metricsToken, authorization, 'METRICS_TOKEN');
    return this.registry.metrics();
  }

  /** Counts every answer by its declared route template (never the raw URL, which carries ids and tokens). */
  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    fastify?.addHook('onResponse', (req, reply, done) => {
      const labels = { method: req.method, route: declarationOf(req)?.template ?? 'unmatched', status: String(reply.statusCode) };
      this.requests.inc(labels);
      this.latency.observe(labels, reply.elapsedTime / 1000);
      done();
    });
  }
}
