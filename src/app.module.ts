import { DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { AccountModule } from './account/index.js';
import { AuditModule } from './audit/index.js';
import { AccessGuardModule, AuthModule } from './auth/index.js';
import { CallsModule } from './calls/index.js';
import { Clock } from './common/clock.js';
import { CommonModule } from './common/common.module.js';
import { loggerModule } from './common/logging/logger.module.js';
import type { AppConfig } from './config/app-config.js';
import { DatabaseModule } from './database/database.module.js';
import { DemoModule } from './demo/index.js';
import { EventsModule } from './events/index.js';
import { HealthModule } from './health/index.js';
import { IngestionModule } from './ingestion/index.js';
import { LeadsModule } from './leads/index.js';
import { MetricsModule } from './metrics/index.js';
import { MailModule, MailWorkerModule } from './mail/index.js';
import { ReceptionistModule } from './receptionist/index.js';
import { RecordingsModule } from './recordings/index.js';
import { TranscriptsModule } from './transcripts/index.js';
import { WebhooksModule, WebhooksWorkerModule } from './webhooks/index.js';

export interface AppModuleOptions {
  config: AppConfig;
  databaseUrl: string;
  clock?: Clock;
  /** The CLI keeps stdout for its one JSON object. */
  logToStderr?: boolean;
  /** Where log lines go instead of stdout/stderr (tests capture them to prove no secret is logged). */
  logStream?: NodeJS.WritableStream;
}

/** The bounded contexts every role shares (the CLI uses exactly these services). */
export function coreModules(opts: AppModuleOptions) {
  return [
    CommonModule.forRoot(opts.config, opts.clock),
    DatabaseModule.forRoot(opts.databaseUrl, opts.config.databaseStatementTimeoutMs),
    loggerModule(opts.config, opts.logToStderr ?? false, opts.logStream),
    AuditModule,
    AccountModule,
    AuthModule,
    ReceptionistModule,
    EventsModule,
    CallsModule,
    TranscriptsModule,
    LeadsModule,
    IngestionModule,
    RecordingsModule,
    DemoModule,
    MailModule,
    WebhooksModule,
  ];
}

@Module({})
export class AppModule {
  /** The HTTP service (`all` and `api` roles). */
  static forRoot(opts: AppModuleOptions): DynamicModule {
    return {
      module: AppModule,
      // The worker modules start their loops only for ROLE all or worker.
      imports: [
        ...coreModules(opts),
        ScheduleModule.forRoot(),
        AccessGuardModule,
        HealthModule,
        MetricsModule,
        WebhooksWorkerModule,
        MailWorkerModule,
      ],
    };
  }
}
