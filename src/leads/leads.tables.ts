import { defineTable } from '../database/tables.js';
import type { LeadIntake, LeadStatus } from './lead-model.js';

/** A row of `leads`, as node-postgres returns it. */
export interface LeadsRow {
  org_id: string;
  lead_id: string;
  call_id: string;
  status: LeadStatus;
  status_updated_at: Date | null;
  captured_at: Date;
  created_at: Date;
  updated_at: Date;
  category: string | null;
  urgency: string | null;
  language: string | null;
  intake_completeness: number | null;
  phone: string | null;
  phone_e164: string | null;
  phone_extension: string | null;
  email: string | null;
  external_id: string | null;
  status_reason: string | null;
  untrusted_name: string | null;
  untrusted_incident_date: string | null;
  intake: LeadIntake | null;
  version: number;
  /** false: a test-mode lead (of a test-mode call). */
  livemode: boolean;
}

export const LEADS_TABLE = defineTable<LeadsRow>('leads', {
  org_id: 'uuid',
  lead_id: 'text',
  call_id: 'text',
  status: 'text',
  status_updated_at: 'timestamp with time zone null',
  captured_at: 'timestamp with time zone',
  created_at: 'timestamp with time zone',
  updated_at: 'timestamp with time zone',
  category: 'text null',
  urgency: 'text null',
  language: 'text null',
  intake_completeness: 'double precision null',
  phone: 'text null',
  phone_e164: 'text null',
  phone_extension: 'text null',
  email: 'text null',
  external_id: 'text null',
  status_reason: 'text null',
  untrusted_name: 'text null',
  untrusted_incident_date: 'text null',
  intake: 'jsonb null',
  version: 'integer',
  livemode: 'boolean',
});

/** A lead as the list and detail read it: every column but the firm and the search key, the intake when asked for. */
export type LeadRow = Omit<LeadsRow, 'org_id' | 'phone_e164' | 'created_at' | 'intake'> & { intake?: LeadIntake | null };
