import { DynamicModule, Module } from '@nestjs/common';
import { coreModules, type AppModuleOptions } from '../core-modules.js';

/** The same services as the API, without HTTP: the dashboard's stand-in. */
@Module({})
export class CliModule {
  static forRoot(opts: AppModuleOptions): DynamicModule {
    return { module: CliModule, imports: coreModules({ ...opts, logToStderr: true }) };
  }
}
