import { defineTable } from '../database/tables.js';

/** A row of `api_keys`, as node-postgres returns it. */
export interface ApiKeysRow {
  id: string;
  org_id: string;
  name: string;
  prefix: string;
  last4: string;
  key_hash: Buffer;
  permission_set: string;
  scopes: string[];
  expires_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
  revoked_at: Date | null;
  /** true: a live key (svc_live_); false: a test key (svc_test_), which sees only test data. */
  livemode: boolean;
}

export const API_KEYS_TABLE = defineTable<ApiKeysRow>('api_keys', {
  id: 'uuid',
  org_id: 'uuid',
  name: 'text',
  prefix: 'text',
  last4: 'text',
  key_hash: 'bytea',
  permission_set: 'text',
  scopes: 'text[]',
  expires_at: 'timestamp with time zone null',
  last_used_at: 'timestamp with time zone null',
  created_at: 'timestamp with time zone',
  revoked_at: 'timestamp with time zone null',
  livemode: 'boolean',
});

/** A row of `rate_limit_buckets`, as node-postgres returns it. */
export interface RateLimitBucketsRow {
  key_id: string;
  tokens: number;
  allowed: boolean;
  updated_at: Date;
}

export const RATE_LIMIT_BUCKETS_TABLE = defineTable<RateLimitBucketsRow>('rate_limit_buckets', {
  key_id: 'uuid',
  tokens: 'double precision',
  allowed: 'boolean',
  updated_at: 'timestamp with time zone',
});
