import { DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { AccessGuardModule } from './auth/index.js';
import { coreModules, type AppModuleOptions } from './core-modules.js';
import { HealthModule } from './health/index.js';
import { MailWorkerModule } from './mail/index.js';
import { MetricsModule } from './metrics/index.js';
import { TestHelpersModule } from './test-helpers/index.js';
import { WebhooksWorkerModule } from './webhooks/index.js';

export { coreModules, type AppModuleOptions } from './core-modules.js';

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
        TestHelpersModule,
        WebhooksWorkerModule,
        MailWorkerModule,
      ],
    };
  }
}
