import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller.js';
import { ReplicationHealth } from './replication.health.js';

@Module({ imports: [TerminusModule.forRoot({ logger: false })], controllers: [HealthController], providers: [ReplicationHealth] })
export class HealthModule {}
