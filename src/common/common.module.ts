import { DynamicModule, Global, Module } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { AppConfig } from '../config/app-config.js';
import { Clock } from './clock.js';
import { CursorCodec } from './pagination/cursor.js';
import { KeysetCursors } from './pagination/keyset.js';
import { DatabaseOutage } from './ops/database-outage.js';
import { OpsSignals } from './ops/ops-signals.js';
import { Database } from '../database/sql.js';
import { RetentionRunner } from './retention/retention-runner.js';
import { TimePartitions } from './retention/time-partitions.js';
import { WriteTurns } from './write-turns.js';

/**
 * The kernel every context may use: validated config, the clock, cursors and keyset pages, the retention job, ops
 * signals, the database outage log, the writers' turns per resource.
 */
@Global()
@Module({})
export class CommonModule {
  static forRoot(config: AppConfig, clock: Clock = new Clock()): DynamicModule {
    // Cursor MAC key derived from the at-rest key, so every process agrees on it.
    const cursorKey = createHmac('sha256', config.webhookSecretKey).update('cursor-mac-v1').digest();
    return {
      module: CommonModule,
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: Clock, useValue: clock },
        { provide: CursorCodec, useValue: new CursorCodec(cursorKey) },
        KeysetCursors,
        OpsSignals,
        DatabaseOutage,
        RetentionRunner,
        WriteTurns,
        { provide: TimePartitions, useFactory: (db: Database) => new TimePartitions((work) => db.transaction(work)), inject: [Database] },
      ],
      exports: [AppConfig, Clock, CursorCodec, KeysetCursors, OpsSignals, DatabaseOutage, RetentionRunner, TimePartitions, WriteTurns],
    };
  }
}
