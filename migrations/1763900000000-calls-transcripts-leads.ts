import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Calls get the rest of their fields; transcripts (one row per call plus one
 * row per turn, so a page is an index range), references (so the `reference`
 * filter is an index lookup), and leads.
 *
 * `updated_at` on calls and leads is always written as clock_timestamp() taken
 * after the writing transaction holds its xid (src/database/change-stamp.ts);
 * list `as_of` is held back to the oldest open writer, so a late commit is
 * never missed by a poller (docs/decisions-calls.md).
 */
export class CallsTranscriptsLeads1763900000000 implements MigrationInterface {
  name = 'CallsTranscriptsLeads1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE calls
        ADD COLUMN duration_s integer,
        ADD COLUMN answered boolean,
        ADD COLUMN category text,
        ADD COLUMN urgency text,
        ADD COLUMN language text,
        ADD COLUMN outcome text,
        ADD COLUMN from_e164 text,
        ADD COLUMN callback_number text,
        ADD COLUMN callback_extension text,
        ADD COLUMN processing_complete boolean NOT NULL DEFAULT false,
        ADD COLUMN completed_event_at timestamptz,
        ADD COLUMN config_version integer,
        ADD COLUMN lead_id text,
        ADD COLUMN untrusted jsonb,
        ADD COLUMN conversation_summary jsonb,
        ADD COLUMN handling jsonb`);
    // Keyset order of the list, and the filters that must not scan the firm's calls.
    await q.query(`CREATE INDEX calls_org_started_idx ON calls (org_id, started_at DESC, call_id DESC)`);
    await q.query(`CREATE INDEX calls_org_updated_idx ON calls (org_id, updated_at)`);
    await q.query(
      `CREATE INDEX calls_org_from_idx ON calls (org_id, from_e164, started_at DESC, call_id DESC) WHERE from_e164 IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE call_references (
        org_id uuid NOT NULL,
        key text NOT NULL,
        call_id text NOT NULL,
        PRIMARY KEY (org_id, key, call_id),
        FOREIGN KEY (org_id, call_id) REFERENCES calls (org_id, call_id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX call_references_call_idx ON call_references (org_id, call_id)`);

    await q.query(`
      CREATE TABLE transcripts (
        org_id uuid NOT NULL,
        call_id text NOT NULL,
        conversation_status text,
        connected_name text,
        notice text,
        covers text[] NOT NULL DEFAULT '{}',
        briefings jsonb NOT NULL DEFAULT '[]',
        turn_count integer NOT NULL DEFAULT 0,
        intake_count integer NOT NULL DEFAULT 0,
        briefing_count integer NOT NULL DEFAULT 0,
        conversation_count integer NOT NULL DEFAULT 0,
        PRIMARY KEY (org_id, call_id),
        FOREIGN KEY (org_id, call_id) REFERENCES calls (org_id, call_id) ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE transcript_turns (
        org_id uuid NOT NULL,
        call_id text NOT NULL,
        idx integer NOT NULL,
        segment text NOT NULL,
        seg_idx integer NOT NULL,
        speaker text NOT NULL,
        speaker_name text,
        text text NOT NULL,
        start_s double precision,
        PRIMARY KEY (org_id, call_id, idx),
        FOREIGN KEY (org_id, call_id) REFERENCES transcripts (org_id, call_id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX transcript_turns_segment_idx ON transcript_turns (org_id, call_id, segment, seg_idx)`);

    await q.query(`
      CREATE TABLE leads (
        org_id uuid NOT NULL,
        lead_id text NOT NULL,
        call_id text NOT NULL,
        status text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'contacted', 'signed', 'rejected')),
        status_updated_at timestamptz,
        captured_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        category text,
        urgency text,
        language text,
        intake_completeness double precision CHECK (intake_completeness BETWEEN 0 AND 1),
        phone text,
        phone_e164 text,
        phone_extension text,
        email text,
        external_id text,
        status_reason text,
        untrusted_name text,
        untrusted_incident_date text,
        intake jsonb,
        version integer NOT NULL DEFAULT 1,
        PRIMARY KEY (org_id, lead_id),
        UNIQUE (org_id, call_id),
        FOREIGN KEY (org_id, call_id) REFERENCES calls (org_id, call_id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX leads_org_captured_idx ON leads (org_id, captured_at DESC, lead_id DESC)`);
    await q.query(`CREATE INDEX leads_org_updated_idx ON leads (org_id, updated_at)`);
    await q.query(`CREATE INDEX leads_org_phone_idx ON leads (org_id, phone_e164) WHERE phone_e164 IS NOT NULL`);
    await q.query(`CREATE INDEX leads_org_external_idx ON leads (org_id, external_id) WHERE external_id IS NOT NULL`);
    await q.query(`CREATE INDEX leads_org_status_idx ON leads (org_id, status, captured_at DESC, lead_id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['leads', 'transcript_turns', 'transcripts', 'call_references']) await q.query(`DROP TABLE IF EXISTS ${t}`);
    for (const i of ['calls_org_started_idx', 'calls_org_updated_idx', 'calls_org_from_idx']) await q.query(`DROP INDEX IF EXISTS ${i}`);
    await q.query(`
      ALTER TABLE calls
        DROP COLUMN duration_s, DROP COLUMN answered, DROP COLUMN category, DROP COLUMN urgency, DROP COLUMN language,
        DROP COLUMN outcome, DROP COLUMN from_e164, DROP COLUMN callback_number, DROP COLUMN callback_extension,
        DROP COLUMN processing_complete, DROP COLUMN completed_event_at, DROP COLUMN config_version, DROP COLUMN lead_id,
        DROP COLUMN untrusted, DROP COLUMN conversation_summary, DROP COLUMN handling`);
  }
}
