import { type DynamicModule, Global, Inject, Injectable, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { TracingConfig } from '../../config/tracing-config.js';
import { Database } from '../../database/sql.js';
import { traceSqlStatements } from './sql-spans.js';
import { startTracing } from './start-tracing.js';
import { Tracing } from './tracing.js';

/** Hooks SQL statements once the pool exists, and flushes the last spans when the app closes (after deliveries drained). */
@Injectable()
class TracingLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(Tracing) private readonly tracing: Tracing,
    private readonly db: Database,
  ) {}

  onModuleInit(): void {
    if (!this.tracing.enabled) return;
    traceSqlStatements(this.db.poolClientClass());
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
