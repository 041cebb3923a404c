import { type DynamicModule, Global, Inject, Injectable, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { TracingConfig } from '../../config/tracing-config.js';
import { traceSqlStatements } from './sql-spans.js';
import { startTracing } from './start-tracing.js';
import { Tracing } from './tracing.js';

/** The part of TypeORM's PostgresDriver used here: its pg pool, whose client class runs every statement. */
interface PooledDriver {
  master?: { Client?: Parameters<typeof traceSqlStatements>[0] };
}

/** Hooks SQL statements once the pool exists, and flushes the last spans when the app closes (after deliveries drained). */
@Injectable()
class TracingLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(Tracing) private readonly tracing: Tracing,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    if (!this.tracing.enabled) return;
    const pool = (this.dataSource.driver as unknown as PooledDriver).master;
    if (pool?.Client) traceSqlStatements(pool.Client);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.tracing.shutdown();
  }
}

/** `Tracing` for every context and role (the CLI too): this app's own tracer provider, or `Tracing.OFF`. */
@Global()
@Module({})
export class TracingModule {
  static forRoot(config: TracingConfig | null): DynamicModule {
    return {
      module: TracingModule,
      providers: [{ provide: Tracing, useFactory: () => startTracing(config) }, TracingLifecycle],
      exports: [Tracing],
    };
  }
}
