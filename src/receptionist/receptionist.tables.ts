import { defineTable } from '../database/tables.js';

/** A row of `receptionist_settings`, as node-postgres returns it. */
export interface ReceptionistSettingsRow {
  org_id: string;
  published: Record<string, unknown> | null;
  version: number;
  published_at: Date | null;
  draft: Record<string, unknown> | null;
  draft_updated_at: Date | null;
}

export const RECEPTIONIST_SETTINGS_TABLE = defineTable<ReceptionistSettingsRow>('receptionist_settings', {
  org_id: 'uuid',
  published: 'jsonb null',
  version: 'integer',
  published_at: 'timestamp with time zone null',
  draft: 'jsonb null',
  draft_updated_at: 'timestamp with time zone null',
});
