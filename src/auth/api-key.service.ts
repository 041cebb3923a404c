import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AccountService } from '../account/index.js';
import { AuditService } from '../audit/index.js';
import { Clock } from '../common/clock.js';
import { OpsSignals } from '../common/ops/ops-signals.js';
import { DatabaseOutage } from '../common/ops/database-outage.js';
import { UnauthorizedError } from '../common/errors/problems.js';
import type { ApiPrincipal } from '../common/http/principal.js';
import { PERMISSION_SETS, PERMISSION_SET_NAMES, type PermissionSet, type Scope, sortScopes } from '../common/http/scopes.js';
import { ApiKeyRepository } from './api-key.repository.js';
import type { ApiKeyEntity } from './entities/api-key.entity.js';
import { Database } from '../database/sql.js';
import { InvalidInputError } from '../common/errors/invalid-input.js';
import { isUuid } from '../common/ids.js';
import { NotFoundError } from '../common/errors/problems.js';
import { LastUsedRecorder } from './last-used.js';
import { PrincipalCache } from './principal-cache.js';

export const KEY_PREFIX = 'svc_live_';
/** A test key's start: it sees only the firm's test-mode data. Both starts have the same length. */
export const TEST_KEY_PREFIX = 'svc_test_';
const keyStart = (livemode: boolean) => (livemode ? KEY_PREFIX : TEST_KEY_PREFIX);
const PREFIX_LENGTH = 8;
const MAX_ACTIVE_KEYS = 10;
const KEY_BODY = /^[A-Za-z0-9_-]{43,128}$/;

export interface ApiKeySummary {
  id: string;
  org_id: string;
  name: string;
  prefix: string;
  last4: string;
  permission_set: string;
  scopes: string[];
  expires_at: string | null;
  last_used_at: string | null;
  created_at: string;
  revoked_at: string | null;
  status: 'active' | 'revoked' | 'expired';
  /** live (svc_live_) or test (svc_test_). */
  mode: 'live' | 'test';
}

const hashKey = (key: string) => createHash('sha256').update(key, 'utf8').digest();

@Injectable()
export class ApiKeyService implements OnApplicationShutdown {
  private readonly lastUsed: LastUsedRecorder;

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly account: AccountService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly db: Database,
    private readonly principals: PrincipalCache,
    signals: OpsSignals,
    outage: DatabaseOutage,
  ) {
    this.lastUsed = new LastUsedRecorder(
      (uses) => this.keys.touchMany(uses),
      (n) => signals.writeFailed('last_used', n),
      (err) => outage.backgroundFailed(err, 'the key usage recorder'),
    );
  }

  /** Uses noted in the last second still reach last_used_at. */
  async onApplicationShutdown(): Promise<void> {
    await this.lastUsed.flush();
  }

  /** Dashboard action. The full key is returned only here. */
  async create(input: {
    orgId: string;
    name: string;
    set: string;
    expiresAt?: Date | null;
    /** false: a test key (svc_test_). Live unless asked. */
    livemode?: boolean;
  }): Promise<{ key: string; summary: ApiKeySummary }> {
    const name = input.name?.trim();
    if (!name) throw new InvalidInputError('name', 'is required');
    if (!PERMISSION_SET_NAMES.includes(input.set as PermissionSet)) {
      throw new InvalidInputError('permissionSet', `must be one of ${PERMISSION_SET_NAMES.join(', ')}`);
    }
    const now = this.clock.now();
    if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) throw new InvalidInputError('expiresAt', 'must be in the future');
    const scopes = sortScopes(PERMISSION_SETS[input.set as PermissionSet].scopes);
    const livemode = input.livemode ?? true;
    const start = keyStart(livemode);
    return this.db.transaction(async (tx) => {
      await this.account.lockOrg(tx, input.orgId);
      if ((await this.keys.countActive(tx, input.orgId, livemode, now)) >= MAX_ACTIVE_KEYS) {
        const which = livemode ? '' : ' test';
        throw new InvalidInputError(null, `this firm already has ${MAX_ACTIVE_KEYS} active${which} keys; revoke one first`);
      }
      let key: string;
      do {
        key = start + randomBytes(32).toString('base64url');
      } while (await this.keys.prefixTaken(tx, key.slice(start.length, start.length + PREFIX_LENGTH)));
      const row = await this.keys.insert(tx, {
        orgId: input.orgId,
        name,
        prefix: key.slice(start.length, start.length + PREFIX_LENGTH),
        last4: key.slice(-4),
        keyHash: hashKey(key),
        permissionSet: input.set,
        scopes,
        expiresAt: input.expiresAt ?? null,
        createdAt: now,
        livemode,
      });
      await this.audit.record(
        {
          orgId: input.orgId,
          actor: { type: 'owner', id: null },
          action: 'api_key.created',
          resourceType: 'api_key',
          resourceIds: [row.id],
          details: { name, permission_set: input.set, mode: livemode ? 'live' : 'test' },
        },
        tx,
      );
      return { key, summary: this.summarize(row, now) };
    });
  }

  async revoke(id: string): Promise<ApiKeySummary> {
    // Refused before the statement: PostgreSQL would fail on the uuid's syntax, which reads as an unexpected error.
    if (!isUuid(id)) throw new InvalidInputError(null, `"${id}" is not an API key id`);
    const now = this.clock.now();
    return this.db.transaction(async (tx) => {
      const row = await this.keys.lockById(tx, id.toLowerCase());
      if (!row) throw new NotFoundError('The API key', `no API key with id "${id}"`);
      if (await this.keys.revoke(tx, row.id, now)) {
        await this.audit.record(
          {
            orgId: row.orgId,
            actor: { type: 'owner', id: null },
            action: 'api_key.revoked',
            resourceType: 'api_key',
            resourceIds: [row.id],
          },
          tx,
        );
        row.revokedAt = now;
      }
      return this.summarize(row, now);
    });
  }

  async list(orgId: string): Promise<ApiKeySummary[]> {
    const now = this.clock.now();
    return (await this.keys.listForOrg(orgId)).map((k) => this.summarize(k, now));
  }

  /** True while the key exists, is not revoked and has not expired (recording links stop with their key). */
  async isActive(id: string): Promise<boolean> {
    const row = await this.keys.findById(id);
    return !!row && this.activeAt(row, this.clock.now());
  }

  /**
   * From the Authorization header to a principal, or 401. With `cached`, a
   * principal this process found in the last 30 s for the same key serves
   * without a lookup: only for routes whose service re-checks the key in its
   * own statement (key-standing.ts). Either way the use is noted for last_used_at.
   */
  async authenticate(header: string | undefined, cached = false): Promise<ApiPrincipal> {
    return this.authenticateNow(header, cached);
  }

  /**
   * `authenticate`, answered synchronously when it needs no lookup (a malformed key throws, a cached principal
   * returns): the request's first stage then spends no promise on the common case.
   */
  authenticateNow(header: string | undefined, cached = false): ApiPrincipal | Promise<ApiPrincipal> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!match) throw new UnauthorizedError();
    const key = match[1];
    // Both starts have one length; the hash covers the whole key, so a live key's body under svc_test_ does not match.
    const start = key.startsWith(TEST_KEY_PREFIX) ? TEST_KEY_PREFIX : KEY_PREFIX;
    if (!key.startsWith(start) || !KEY_BODY.test(key.slice(start.length))) throw new UnauthorizedError('The API key is malformed.');
    const given = hashKey(key);
    const now = this.clock.now();
    const known = cached ? this.principals.get(given) : undefined;
    if (known && !(known.expiresAt && known.expiresAt.getTime() <= now.getTime())) {
      this.lastUsed.note(known.keyId, now);
      return known;
    }
    return this.lookUp(key, start, given, now);
  }

  private async lookUp(key: string, start: string, given: Buffer, now: Date): Promise<ApiPrincipal> {
    const row = await this.keys.findByPrefix(key.slice(start.length, start.length + PREFIX_LENGTH));
    // Compare even when no row was found, so timing does not tell a known prefix from an unknown one.
    const stored = row?.keyHash ?? Buffer.alloc(given.length);
    const same = stored.length === given.length && timingSafeEqual(stored, given);
    if (!row || !same) throw new UnauthorizedError('The API key is not valid.');
    if (row.revokedAt) throw new UnauthorizedError('The API key has been revoked.');
    if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) throw new UnauthorizedError('The API key has expired.');
    this.lastUsed.note(row.id, now);
    const principal = toPrincipal(row);
    this.principals.set(given, principal);
    return principal;
  }

  private activeAt(k: ApiKeyEntity, now: Date): boolean {
    return !k.revokedAt && !(k.expiresAt && k.expiresAt.getTime() <= now.getTime());
  }

  private summarize(k: ApiKeyEntity, now: Date): ApiKeySummary {
    return {
      id: k.id,
      org_id: k.orgId,
      name: k.name,
      prefix: k.prefix,
      last4: k.last4,
      permission_set: k.permissionSet,
      scopes: sortScopes(k.scopes),
      expires_at: k.expiresAt?.toISOString() ?? null,
      last_used_at: k.lastUsedAt?.toISOString() ?? null,
      created_at: k.createdAt.toISOString(),
      revoked_at: k.revokedAt?.toISOString() ?? null,
      status: k.revokedAt ? 'revoked' : this.activeAt(k, now) ? 'active' : 'expired',
      mode: k.livemode ? 'live' : 'test',
    };
  }
}

function toPrincipal(row: ApiKeyEntity): ApiPrincipal {
  return {
    orgId: row.orgId,
    keyId: row.id,
    keyName: row.name,
    prefix: row.prefix,
    last4: row.last4,
    scopes: sortScopes(row.scopes) as Scope[],
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
    livemode: row.livemode,
  };
}
