import { runCliInProcess } from '../support/cli-in-process';
import { createFirm } from '../support/factories';
import type { TestApp } from '../support/test-app';
import { HOUR_MS, type ConsoleOverHttp } from './console-context';

/** The buttons an enabled endpoint's page shows a full session (each a form that changes something, or opens one). */
const ACTION_BUTTONS = ['Edit endpoint', 'Send test', 'Disable', 'Rotate secret', 'Delete', 'Resend'];
const buttonsIn = (html: string) => [...html.matchAll(/<button type="submit"[^>]*>([^<]+)<\/button>/g)].map((m) => m[1]);

/** The console over HTTP: who may do what (read-only links), the firm's sessions, and ending them. */
export function sessions(shared: ConsoleOverHttp): void {
  describe('who may do what', () => {
    let t: TestApp;
    const { endpointFor, signIn, deliveriesOf, auditOf } = shared;
    beforeAll(() => {
      ({ t } = shared);
    });
    const cli = (...args: string[]) => runCliInProcess(t.app, [...args, '--json']);

    it('a read-only session sees every page with no action button, and each state-changing request answers 403', async () => {
      const f = await createFirm(t.app);
      const id = await endpointFor(f);
      const full = await signIn(f);
      expect((await full.post(`/console/endpoints/${id}/test`)).status).toBe(303);
      const [delivery] = await t.sql('SELECT id FROM webhook_deliveries WHERE endpoint_id = $1', [id]);
      const looker = await signIn(f, true, true);
      const pages = [
        '/console/endpoints',
        `/console/endpoints/${id}`,
        `/console/endpoints/${id}/edit`,
        `/console/endpoints/${id}/deliveries/${delivery.id}`,
        '/console/event-types',
      ];
      for (const path of pages) {
        const html = await (await looker.get(path)).text();
        expect([path, buttonsIn(html)]).toEqual([path, ['Sign out', ...(path.endsWith(id) ? ['Filter'] : [])]]);
        expect(html).toContain('<span class="read-only"');
      }
      expect(buttonsIn(await (await full.get(`/console/endpoints/${id}`)).text())).toEqual(expect.arrayContaining(ACTION_BUTTONS));
      const posts: [string, Record<string, string | string[]>][] = [
        [`/console/endpoints/${id}/test`, {}],
        [`/console/endpoints/${id}/deliveries/${delivery.id}/resend`, {}],
        [`/console/endpoints/${id}/disable`, {}],
        [`/console/endpoints/${id}/rotate-secret`, {}],
        [`/console/endpoints/${id}/delete`, {}],
        [`/console/endpoints/${id}/edit`, { description: 'x', types: 'lead.created' }],
        ['/console/endpoints', { url: 'https://hooks.example.com/new', types: 'lead.created' }],
      ];
      for (const [path, form] of posts) {
        const r = await looker.post(path, form);
        expect([path, r.status]).toEqual([path, 403]);
        expect(await r.text()).toContain('This console session is read-only');
      }
      const json = await looker.post(`/console/endpoints/${id}/test`, {}, { accept: 'application/json' });
      expect(((await json.json()) as any).code).toBe('console_read_only');
      expect(await deliveriesOf(id)).toBe(1);
      expect(await t.sql('SELECT count(*)::int AS n FROM webhook_endpoints WHERE org_id = $1', [f.orgId])).toEqual([{ n: 1 }]);
      expect(await auditOf(f.orgId, 'console.signed_in')).toContainEqual(
        expect.objectContaining({ details: expect.objectContaining({ read_only: true }) }),
      );
      // It may still sign out.
      expect((await looker.post('/console/sign-out')).status).toBe(200);
      expect((await looker.get('/console/endpoints')).status).toBe(401);
    });

    it('`console sessions` lists the firm’s live sessions by a public handle; `console revoke` ends one or all, and each is signed out', async () => {
      const f = await createFirm(t.app);
      const other = await createFirm(t.app);
      const a = await signIn(f);
      const b = await signIn(f, false, true);
      const theirs = await signIn(other);
      t.clock.advance(2 * 60_000);
      try {
        expect((await a.get('/console/endpoints')).status).toBe(200);
        const listed = await cli('console', 'sessions', '--org', f.slug);
        expect(listed.code).toBe(0);
        expect(Object.keys(listed.json)).toEqual(['sessions']);
        const rows = listed.json.sessions;
        expect(rows.map((s: Record<string, unknown>) => Object.keys(s))).toEqual([
          ['id', 'created_at', 'expires_at', 'last_seen_at', 'read_only', 'mode'],
          ['id', 'created_at', 'expires_at', 'last_seen_at', 'read_only', 'mode'],
        ]);
        const ids = await t.sql(
          'SELECT id, read_only, livemode FROM console_sessions WHERE org_id = $1 ORDER BY created_at DESC, id DESC',
          [f.orgId],
        );
        expect(rows.map((s: any) => [s.id, s.read_only, s.mode])).toEqual(
          ids.map((s) => [s.id, s.read_only, s.livemode ? 'live' : 'test']),
        );
        const seenA = rows.find((s: any) => !s.read_only);
        expect(Date.parse(seenA.last_seen_at)).toBeGreaterThan(Date.parse(seenA.created_at));
        expect(Date.parse(seenA.expires_at) - Date.parse(seenA.created_at)).toBe(12 * HOUR_MS);
        expect(JSON.stringify(listed.json)).not.toContain(a.secret.slice(16));

        const readOnly = rows.find((s: any) => s.read_only).id;
        expect((await cli('console', 'revoke', '--org', f.slug, '--session', readOnly)).json).toEqual({ revoked: [readOnly] });
        const out = await b.get('/console/endpoints');
        expect(out.status).toBe(401);
        expect(await out.text()).toContain('<h1>Signed out</h1>');
        expect((await a.get('/console/endpoints')).status).toBe(200);
        // Another firm's session, an unknown or malformed id: not this firm's to end.
        const foreign = (await cli('console', 'sessions', '--org', other.slug)).json.sessions[0].id;
        for (const id of [foreign, readOnly, 'nope']) {
          expect(await cli('console', 'revoke', '--org', f.slug, '--session', id)).toEqual({
            code: 1,
            json: undefined,
            message: `no console session with id "${id}" for this firm`,
          });
        }
        for (const flags of [[], ['--all', '--session', seenA.id]]) {
          expect((await cli('console', 'revoke', '--org', f.slug, ...flags)).code).toBe(2);
        }
        expect((await cli('console', 'revoke', '--org', f.slug, '--all')).json).toEqual({ revoked: [seenA.id] });
        expect(await (await a.get('/console/endpoints')).text()).toContain('<h1>Signed out</h1>');
        expect((await cli('console', 'sessions', '--org', f.slug)).json).toEqual({ sessions: [] });
        expect((await theirs.get('/console/endpoints')).status).toBe(200);
        expect(await auditOf(f.orgId, 'console.sessions_revoked')).toEqual([
          expect.objectContaining({ actor_type: 'owner', resource_ids: [readOnly] }),
          expect.objectContaining({ actor_type: 'owner', resource_ids: [seenA.id] }),
        ]);
      } finally {
        t.clock.reset();
      }
    });

    it('the page header says when the session ends', async () => {
      const f = await createFirm(t.app, { timezone: 'UTC' });
      const before = Date.now();
      const c = await signIn(f);
      const html = await (await c.get('/console/endpoints')).text();
      const ends = /Session ends (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC/.exec(html)![1];
      const at = Date.parse(`${ends.replace(' ', 'T')}Z`);
      expect(at).toBeGreaterThanOrEqual(Math.floor((before + 12 * HOUR_MS) / 1000) * 1000);
      expect(at).toBeLessThanOrEqual(Date.now() + 12 * HOUR_MS);
    });
  });
}
