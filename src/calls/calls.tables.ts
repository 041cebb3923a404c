import { defineTable } from '../database/tables.js';
import type { CallHandling, CallUntrusted, ConversationSummary } from './call-model.js';

/** A row of `call_references`, as node-postgres returns it. */
export interface CallReferencesRow {
  org_id: string;
  key: string;
  call_id: string;
}

export const CALL_REFERENCES_TABLE = defineTable<CallReferencesRow>('call_references', {
  org_id: 'uuid',
  key: 'text',
  call_id: 'text',
});

/** A row of `calls`, as node-postgres returns it. */
export interface CallsRow {
  org_id: string;
  call_id: string;
  started_at: Date | null;
  has_recording: boolean;
  created_at: Date;
  updated_at: Date;
  duration_s: number | null;
  answered: boolean | null;
  category: string | null;
  urgency: string | null;
  language: string | null;
  outcome: string | null;
  from_e164: string | null;
  callback_number: string | null;
  callback_extension: string | null;
  processing_complete: boolean;
  completed_event_at: Date | null;
  config_version: number | null;
  lead_id: string | null;
  untrusted: CallUntrusted | null;
  conversation_summary: ConversationSummary | null;
  handling: CallHandling | null;
  /** false: a test-mode call, seen only by test keys (its transcript, recording and links follow it). */
  livemode: boolean;
}

export const CALLS_TABLE = defineTable<CallsRow>('calls', {
  org_id: 'uuid',
  call_id: 'text',
  started_at: 'timestamp with time zone null',
  has_recording: 'boolean',
  created_at: 'timestamp with time zone',
  updated_at: 'timestamp with time zone',
  duration_s: 'integer null',
  answered: 'boolean null',
  category: 'text null',
  urgency: 'text null',
  language: 'text null',
  outcome: 'text null',
  from_e164: 'text null',
  callback_number: 'text null',
  callback_extension: 'text null',
  processing_complete: 'boolean',
  completed_event_at: 'timestamp with time zone null',
  config_version: 'integer null',
  lead_id: 'text null',
  untrusted: 'jsonb null',
  conversation_summary: 'jsonb null',
  handling: 'jsonb null',
  livemode: 'boolean',
});

type CallListColumns =
  | 'call_id'
  | 'duration_s'
  | 'answered'
  | 'category'
  | 'urgency'
  | 'language'
  | 'outcome'
  | 'lead_id'
  | 'from_e164'
  | 'callback_number'
  | 'callback_extension'
  | 'updated_at'
  | 'processing_complete'
  | 'has_recording'
  | 'untrusted';

/** One row of the list and detail queries: listed calls have started (`started_at IS NOT NULL`); the detail adds the heavy columns. */
export type CallRow = Pick<CallsRow, CallListColumns> & { started_at: Date } & Partial<
    Pick<CallsRow, 'config_version' | 'conversation_summary' | 'handling'>
  >;
