import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabasePool } from './database-pool.js';
import { LogHistoryEntity } from './entities/log-history.entity.js';
import { BOOT_CONNECT_DELAY_MS, BOOT_CONNECT_TRIES } from './migrate.js';
import { NAMING_STRATEGY } from './naming-strategy.js';
import { Replication } from './replication.js';
import { Database } from './sql.js';

export const DATABASE_URL = Symbol('DATABASE_URL');

/**
 * TypeORM on the URL resolved before boot (embedded PostgreSQL or DATABASE_URL), with the entities the contexts
 * register (`TypeOrmModule.forFeature`). Schema only ever comes from migrations.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(url: string, statementTimeoutMs: number, poolSize = 20): DynamicModule {
    const pools = new DatabasePool();
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRoot({
          type: 'postgres',
          url,
          driver: pools.driver,
          autoLoadEntities: true,
          // Columns are their properties in snake_case (select lists name them the same way).
          namingStrategy: NAMING_STRATEGY,
          synchronize: false,
          migrationsRun: false,
          // Schema only ever comes from migrations: no CREATE EXTENSION at connect; `gen_random_uuid()` (built in
          // since PostgreSQL 13) is the default the migrations give uuid keys, so TypeORM's own DDL says the same.
          installExtensions: false,
          uuidExtension: 'pgcrypto',
          logging: false,
          // The first connection, at boot only: processes started with PostgreSQL, or on a loaded machine, wait for it
          // (as the migrations' connection does) rather than exit. Once running, the pool fails fast (503) and reconnects.
          retryAttempts: BOOT_CONNECT_TRIES,
          retryDelay: BOOT_CONNECT_DELAY_MS,
          extra: {
            max: poolSize,
            connectionTimeoutMillis: 3000,
            idleTimeoutMillis: 30000,
            // A frozen or half-open server never answers: without a client-side bound a statement (and the
            // request holding it) would wait forever. statement_timeout also stops the server's own work.
            query_timeout: statementTimeoutMs,
            statement_timeout: statementTimeoutMs,
          },
        }),
        // The kernel's one table: the histories the database has lived through (the events log's order, the fence).
        TypeOrmModule.forFeature([LogHistoryEntity]),
      ],
      providers: [{ provide: DATABASE_URL, useValue: url }, { provide: DatabasePool, useValue: pools }, Database, Replication],
      exports: [DATABASE_URL, Database, Replication],
    };
  }
}
