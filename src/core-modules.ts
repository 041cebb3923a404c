import { AccountModule } from './account/index.js';
import { AuditModule } from './audit/index.js';
import { AuthModule } from './auth/index.js';
import { CallsModule } from './calls/index.js';
import type { Clock } from './common/clock.js';
import { CommonModule } from './common/common.module.js';
import { ConsoleModule } from './console/index.js';
import { loggerModule } from './common/logging/logger.module.js';
import { TracingModule } from './common/tracing/tracing.module.js';
import type { AppConfig } from './config/app-config.js';
import { DatabaseModule } from './database/database.module.js';
import { DemoModule } from './demo/index.js';
import { EventsModule } from './events/index.js';
import { IdempotencyModule } from './idempotency/index.js';
import { IngestionModule } from './ingestion/index.js';
import { LeadsModule } from './leads/index.js';
import { MailModule } from './mail/index.js';
import { ReceptionistModule } from './receptionist/index.js';
import { RecordingsModule } from './recordings/index.js';
import { TranscriptsModule } from './transcripts/index.js';
import { WebhooksModule } from './webhooks/index.js';

// Apart from app.module.ts so the CLI loads none of the HTTP-only modules (health, metrics, the scheduler).
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
    TracingModule.forRoot(opts.config.tracing),
    AuditModule,
    AccountModule,
    AuthModule,
    IdempotencyModule,
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
    // The endpoint owner's console (its pages in the HTTP roles; its link command in the CLI).
    ConsoleModule,
  ];
}
