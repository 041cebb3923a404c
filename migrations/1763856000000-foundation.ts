import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Firms, API keys, audit log, receptionist settings, the events outbox and the call core. */
export class Foundation1763856000000 implements MigrationInterface {
  name = 'Foundation1763856000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE orgs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        slug text NOT NULL UNIQUE,
        display_name text,
        status text NOT NULL DEFAULT 'onboarding',
        timezone text NOT NULL DEFAULT 'America/Chicago',
        vertical text NOT NULL DEFAULT 'law',
        plan text,
        billing_status text,
        trial_ends_at timestamptz,
        number text,
        payment_method_on_file boolean NOT NULL DEFAULT false,
        owner_email text,
        first_call_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
        name text NOT NULL,
        prefix text NOT NULL UNIQUE,
        last4 text NOT NULL,
        key_hash bytea NOT NULL,
        permission_set text NOT NULL,
        scopes text[] NOT NULL,
        expires_at timestamptz,
        last_used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX api_keys_org_idx ON api_keys (org_id, created_at DESC)`);
    await q.query(`
      CREATE TABLE audit_log (
        id bigserial PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
        at timestamptz NOT NULL DEFAULT now(),
        actor_type text NOT NULL,
        actor_id text,
        action text NOT NULL,
        resource_type text NOT NULL,
        resource_ids text[] NOT NULL DEFAULT '{}',
        details jsonb
      )`);
    await q.query(`CREATE INDEX audit_log_org_at_idx ON audit_log (org_id, at DESC)`);
    await q.query(`
      CREATE TABLE receptionist_settings (
        org_id uuid PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
        published jsonb,
        version integer NOT NULL DEFAULT 0,
        published_at timestamptz,
        draft jsonb,
        draft_updated_at timestamptz
      )`);
    // seq orders the log; txid lets readers hold back rows of transactions that
    // are still open, so paging by seq never skips a late commit (docs/decisions.md).
    await q.query(`
      CREATE TABLE events (
        seq bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
        type text NOT NULL,
        test boolean NOT NULL DEFAULT false,
        occurred_at timestamptz NOT NULL,
        -- json, not jsonb: keeps member order, so the body signed and sent equals what the API lists.
        data json NOT NULL,
        txid xid8 NOT NULL DEFAULT pg_current_xact_id()
      )`);
    await q.query(`CREATE INDEX events_org_seq_idx ON events (org_id, seq)`);
    await q.query(`CREATE INDEX events_org_type_seq_idx ON events (org_id, type, seq)`);
    await q.query(`CREATE INDEX events_occurred_at_idx ON events (occurred_at)`);
    await q.query(`
      CREATE TABLE calls (
        org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
        call_id text NOT NULL,
        started_at timestamptz,
        has_recording boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org_id, call_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['calls', 'events', 'receptionist_settings', 'audit_log', 'api_keys', 'orgs']) {
      await q.query(`DROP TABLE IF EXISTS ${t}`);
    }
  }
}
