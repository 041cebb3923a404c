import { Module, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/index.js';
import { RetentionRunner } from '../common/retention/retention-runner.js';
import { LeadsModule } from '../leads/index.js';
import { EventsController } from './events.controller.js';
import { EventPagesRepository } from './event-pages.repository.js';
import { EventsRepository } from './events.repository.js';
import { StandbyHorizon } from './standby-horizon.js';
import { EventsService } from './events.service.js';
import { EVENT_RETENTION_MS } from './event-rules.js';
import { LeadEvents } from './lead-events.js';
import { EventWaits } from './event-waits.js';
import { WaitingEventsList } from './waiting-events-list.js';
import { EventEntity } from './entities/event.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([EventEntity]), LeadsModule, AuthModule],
  controllers: [EventsController],
  providers: [EventsService, EventsRepository, EventPagesRepository, LeadEvents, EventWaits, WaitingEventsList, StandbyHorizon],
  exports: [EventsService, EventWaits, StandbyHorizon],
})
export class EventsModule implements OnModuleInit {
  constructor(private readonly retention: RetentionRunner) {}

  /** Events are kept 30 days: the job drops each day's partition once the whole day is older. */
  onModuleInit(): void {
    this.retention.register({ table: 'events', maxAgeMs: EVENT_RETENTION_MS });
  }
}
