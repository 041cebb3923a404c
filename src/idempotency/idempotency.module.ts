import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyStore } from '../common/http/idempotency-stage.js';
import { IdempotencyKeyEntity } from './entities/idempotency-key.entity.js';
import { IdempotencyKeysRepository } from './idempotency-keys.repository.js';
import { IdempotencyService } from './idempotency.service.js';

/**
 * The keys' table, its rules and its retention (every role: the worker's retention job deletes expired keys). Global,
 * as the store of the idempotency stage (`IdempotencyStore`) that `@Endpoint` puts on the keyed POSTs of any context.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKeyEntity])],
  providers: [IdempotencyKeysRepository, IdempotencyService, { provide: IdempotencyStore, useExisting: IdempotencyService }],
  exports: [IdempotencyService, IdempotencyStore],
})
export class IdempotencyModule {}
