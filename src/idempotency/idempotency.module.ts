import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyKeyEntity } from './entities/idempotency-key.entity.js';
import { IdempotencyKeysRepository } from './idempotency-keys.repository.js';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';
import { IdempotencyService } from './idempotency.service.js';

/** The keys' table, its rules and its retention (every role: the worker's retention job deletes expired keys). */
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKeyEntity])],
  providers: [IdempotencyKeysRepository, IdempotencyService],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}

/** The idempotency stage of every request; only the HTTP app installs it (the CLI has no routes). */
@Module({ imports: [IdempotencyModule], providers: [{ provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor }] })
export class IdempotencyStageModule {}
