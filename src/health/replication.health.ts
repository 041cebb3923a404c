import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { AppConfig } from '../config/app-config.js';
import { Replication } from '../database/replication.js';

/**
 * Readiness's word on durability (`replication` in GET /health/ready): whether commits are synchronously
 * replicated, how many standbys stream, and, with EVENTS_WAIT_FOR_STANDBY, whether new events are held for want of
 * one (`degraded`: the process still serves; events wait). It never fails readiness by itself: an asynchronous
 * standby, or none, is the operator's choice (docs/operations.md).
 */
@Injectable()
export class ReplicationHealth {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly replication: Replication,
    private readonly config: AppConfig,
  ) {}

  async check(key = 'replication'): Promise<HealthIndicatorResult> {
    const session = this.indicators.check(key);
    let status;
    try {
      status = await this.replication.status();
    } catch {
      // The database ping beside it says why (unreachable, or an older history): readiness is a 503 either way.
      return session.down({ message: 'could not read the replication status' });
    }
    const data = {
      synchronous: status.synchronous,
      standbys: status.standbys,
      synchronous_standbys: status.synchronousStandbys,
      synchronous_commit: status.synchronousCommit,
      events_wait_for_standby: this.config.eventsWaitForStandby,
    };
    if (this.config.eventsWaitForStandby && status.standbys === 0) {
      return session.degraded({ ...data, message: 'EVENTS_WAIT_FOR_STANDBY: no standby streams; new events are not listed or sent' });
    }
    return session.up(data);
  }
}
