import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_GUARD } from '@nestjs/core';
import { AccountModule } from '../account/index.js';
import { AuditModule } from '../audit/index.js';
import { AccessGuard } from './access.guard.js';
import { ConcurrentRequests } from './concurrent-requests.js';
import { ApiKeyRepository } from './api-key.repository.js';
import { ApiKeyService } from './api-key.service.js';
import { KeyAllowancesRepository } from './key-allowances.repository.js';
import { KeyAllowances } from './key-allowances.service.js';
import { KeyStandingRepository } from './key-standing.repository.js';
import { KeyStanding } from './key-standing.service.js';
import { PrincipalCache } from './principal-cache.js';
import { RateLimitRepository } from './rate-limit.repository.js';
import { RateLimitService } from './rate-limit.service.js';
import { ApiKeyEntity } from './entities/api-key.entity.js';
import { RateLimitBucketEntity } from './entities/rate-limit-bucket.entity.js';
import { KeyAllowanceEntity } from './entities/key-allowance.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity, RateLimitBucketEntity, KeyAllowanceEntity]), AccountModule, AuditModule],
  providers: [ApiKeyRepository, ApiKeyService, PrincipalCache, KeyStanding, KeyStandingRepository, KeyAllowances, KeyAllowancesRepository],
  exports: [ApiKeyService, KeyStanding, KeyAllowances],
})
export class AuthModule {}

/** The API's global guard; only the HTTP app installs it (the CLI has no routes). */
@Module({
  imports: [AuthModule],
  providers: [RateLimitRepository, RateLimitService, ConcurrentRequests, { provide: APP_GUARD, useClass: AccessGuard }],
  exports: [ConcurrentRequests],
})
export class AccessGuardModule {}
