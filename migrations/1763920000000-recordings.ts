import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Call recordings (metadata; the audio lives in the recording store) and
 * one-hour playback links, stored only as a SHA-256 hash of their token.
 */
export class Recordings1763920000000 implements MigrationInterface {
  name = 'Recordings1763920000000';

  async up(q: QueryRunner): Promise<void> {
    // One recording per call. storage_key is fresh for every upload, so a
    // replaced file is never overwritten in place while someone streams it.
    await q.query(`
      CREATE TABLE recordings (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        org_id uuid NOT NULL,
        call_id text NOT NULL,
        storage_key text NOT NULL UNIQUE,
        size_bytes bigint NOT NULL CHECK (size_bytes > 0),
        sha256 bytea NOT NULL,
        content_type text NOT NULL DEFAULT 'audio/ogg',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (org_id, call_id),
        FOREIGN KEY (org_id, call_id) REFERENCES calls (org_id, call_id) ON DELETE CASCADE
      )`);
    // Removing a recording deletes its links (ON DELETE CASCADE): every link to it stops.
    await q.query(`
      CREATE TABLE recording_links (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
        recording_id uuid NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
        call_id text NOT NULL,
        token_hash bytea NOT NULL UNIQUE,
        created_by_key_id uuid NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX recording_links_org_expires_idx ON recording_links (org_id, expires_at)`);
    await q.query(`CREATE INDEX recording_links_recording_idx ON recording_links (recording_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS recording_links`);
    await q.query(`DROP TABLE IF EXISTS recordings`);
  }
}
