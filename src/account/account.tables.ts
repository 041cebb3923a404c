import { defineTable } from '../database/tables.js';

/** A row of `orgs`, as node-postgres returns it. */
export interface OrgsRow {
  id: string;
  slug: string;
  display_name: string | null;
  status: string;
  timezone: string;
  vertical: string;
  plan: string | null;
  billing_status: string | null;
  trial_ends_at: Date | null;
  number: string | null;
  payment_method_on_file: boolean;
  owner_email: string | null;
  first_call_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const ORGS_TABLE = defineTable<OrgsRow>('orgs', {
  id: 'uuid',
  slug: 'text',
  display_name: 'text null',
  status: 'text',
  timezone: 'text',
  vertical: 'text',
  plan: 'text null',
  billing_status: 'text null',
  trial_ends_at: 'timestamp with time zone null',
  number: 'text null',
  payment_method_on_file: 'boolean',
  owner_email: 'text null',
  first_call_at: 'timestamp with time zone null',
  created_at: 'timestamp with time zone',
  updated_at: 'timestamp with time zone',
});
