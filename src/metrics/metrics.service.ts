import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { WebhookMetrics } from '../webhooks/index.js';

interface PgPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

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
    @InjectDataSource() private readonly dataSource: DataSource,
    webhooks: WebhookMetrics,
  ) {
    for (const metric of webhooks.metrics) this.registry.registerMetric(metric);
    const pool = () => (this.dataSource.driver as unknown as { master?: PgPool }).master;
    new Gauge({
      name: 'db_pool_connections',
      help: 'Database pool connections by state (total, idle, waiting clients).',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const p = pool();
        this.set({ state: 'total' }, p?.totalCount ?? 0);
        this.set({ state: 'idle' }, p?.idleCount ?? 0);
        this.set({ state: 'waiting' }, p?.waitingCount ?? 0);
      },
    });
  }

  /** Counts every answer by its route template (never the raw URL, which carries ids and tokens). */
  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    fastify?.addHook('onResponse', async (req, reply) => {
      const labels = { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
      this.requests.inc(labels);
      this.latency.observe(labels, reply.elapsedTime / 1000);
    });
  }
}
