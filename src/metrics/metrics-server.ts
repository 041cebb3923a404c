import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Registry } from 'prom-client';
import { UnauthorizedError } from '../common/errors/problems.js';
import { AppConfig } from '../config/app-config.js';
import { MetricsService } from './metrics.service.js';

/**
 * GET /metrics alone on METRICS_PORT, when set. A ROLE=worker process serves
 * no HTTP otherwise, yet its delivery attempts are counted only in itself, so
 * Prometheus scrapes it here. Same series and same METRICS_TOKEN as the API port.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server: Server | null = null;

  constructor(
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const port = this.config.metricsPort;
    if (port === null) return;
    const server = createServer((req, res) => void this.answer(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.config.host, () => resolve());
    });
    this.server = server;
    this.logger.log({ port }, 'metrics served on METRICS_PORT');
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if ((req.url ?? '').split('?')[0] !== '/metrics' || req.method !== 'GET') return plain(res, 404, 'not found: GET /metrics');
    try {
      const text = await this.metrics.scrape(req.headers.authorization);
      res.writeHead(200, { 'content-type': Registry.PROMETHEUS_CONTENT_TYPE });
      res.end(text);
    } catch (err) {
      if (err instanceof UnauthorizedError) {
        res.setHeader('www-authenticate', 'Bearer');
        return plain(res, 401, 'Send METRICS_TOKEN as a bearer token.');
      }
      this.logger.warn({ err }, 'could not collect metrics');
      plain(res, 500, 'could not collect metrics');
    }
  }
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}
