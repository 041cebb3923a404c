import { defineTable } from '../database/tables.js';

/** A row of `recording_links`, as node-postgres returns it. */
export interface RecordingLinksRow {
  id: string;
  org_id: string;
  recording_id: string;
  call_id: string;
  token_hash: Buffer;
  created_by_key_id: string;
  created_at: Date;
  expires_at: Date;
}

export const RECORDING_LINKS_TABLE = defineTable<RecordingLinksRow>('recording_links', {
  id: 'uuid',
  org_id: 'uuid',
  recording_id: 'uuid',
  call_id: 'text',
  token_hash: 'bytea',
  created_by_key_id: 'uuid',
  created_at: 'timestamp with time zone',
  expires_at: 'timestamp with time zone',
});

/** A row of `recordings`, as node-postgres returns it. */
export interface RecordingsRow {
  id: string;
  org_id: string;
  call_id: string;
  storage_key: string;
  size_bytes: string;
  sha256: Buffer;
  content_type: string;
  created_at: Date;
  updated_at: Date;
}

export const RECORDINGS_TABLE = defineTable<RecordingsRow>('recordings', {
  id: 'uuid',
  org_id: 'uuid',
  call_id: 'text',
  storage_key: 'text',
  size_bytes: 'bigint',
  sha256: 'bytea',
  content_type: 'text',
  created_at: 'timestamp with time zone',
  updated_at: 'timestamp with time zone',
});
