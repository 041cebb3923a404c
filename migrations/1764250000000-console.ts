import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The endpoint owner's console (src/console): one-time sign-in links and the sessions they open. Like recording
 * links, only the SHA-256 of each link token and of each session id is stored. A link is kept while a session it
 * opened could still be alive (its sessions go with it); both go with their firm.
 */
export class Console1764250000000 implements MigrationInterface {
  name = 'Console1764250000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE console_links (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
        livemode boolean NOT NULL,
        token_hash bytea NOT NULL UNIQUE,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await q.query(`CREATE INDEX console_links_org_expires_idx ON console_links (org_id, expires_at)`);
    await q.query(`
      CREATE TABLE console_sessions (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
        livemode boolean NOT NULL,
        link_id uuid NOT NULL REFERENCES console_links(id) ON DELETE CASCADE,
        session_hash bytea NOT NULL UNIQUE,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX console_sessions_link_idx ON console_sessions (link_id)`);
    await q.query(`CREATE INDEX console_sessions_org_expires_idx ON console_sessions (org_id, expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS console_sessions`);
    await q.query(`DROP TABLE IF EXISTS console_links`);
  }
}
