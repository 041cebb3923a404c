import { Database } from '../src/database/sql';
import { RetentionRunner } from '../src/common/retention/retention-runner';
import { MailDispatcher, MailService } from '../src/mail';
import { createFirm } from './support/factories';
import { waitFor } from './support/receiver';
import { mailText, startSmtp } from './support/smtp';
import { startTestApp, type TestApp } from './support/test-app';

const MIN = 60_000;

describe('owner email outbox', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  beforeAll(async () => {
    smtp = await startSmtp();
  });
  afterAll(() => smtp.close());

  const enqueue = (t: TestApp, orgId: string, to: string, fail = false) =>
    t.app.get(Database).transaction(async (m) => {
      const id = await t.app
        .get(MailService)
        .enqueue(m, { orgId, kind: 'test.notice', to, subject: 'Webhook notice ✓', body: 'Line one.\nLine two: ünïcode.' });
      if (fail) throw new Error('rolled back');
      return id;
    });
  const row = async (t: TestApp, id: string) => (await t.sql(`SELECT * FROM mail_outbox WHERE id = $1`, [id]))[0];

  describe('with SMTP_URL', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Receptionist <hooks@service.example>' } });
    });
    afterAll(() => t.close());

    it('sends what the transaction wrote, once, over SMTP', async () => {
      const f = await createFirm(t.app, { publish: false });
      const id = await enqueue(t, f.orgId, 'owner@firm.example');
      await t.app.get(MailDispatcher).runOnce();
      const sent = await waitFor(async () => ((await row(t, id)).status === 'sent' ? row(t, id) : null), 'sent');
      expect(sent.attempt_count).toBe(1);
      expect(sent.sent_at).toBeInstanceOf(Date);
      const mails = smtp.mails.filter((m) => m.to.includes('owner@firm.example'));
      expect(mails).toHaveLength(1);
      expect(mails[0].from).toBe('hooks@service.example');
      expect(mails[0].raw).toMatch(/^From: Receptionist <hooks@service\.example>/m);
      expect(mails[0].raw).toMatch(/^To: owner@firm\.example/m);
      expect(mailText(mails[0].raw)).toContain('Line two: ünïcode.');
      await t.app.get(MailDispatcher).runOnce();
      expect(smtp.mails.filter((m) => m.to.includes('owner@firm.example'))).toHaveLength(1);
    });

    it('a rolled-back transaction sends nothing', async () => {
      const f = await createFirm(t.app, { publish: false });
      await expect(enqueue(t, f.orgId, 'never@firm.example', true)).rejects.toThrow('rolled back');
      await t.app.get(MailDispatcher).runOnce();
      expect(await t.sql(`SELECT 1 FROM mail_outbox WHERE to_address = 'never@firm.example'`)).toEqual([]);
      expect(smtp.mails.filter((m) => m.to.includes('never@firm.example'))).toEqual([]);
    });
  });

  it('without SMTP_URL the message is logged and marked so', async () => {
    const t = await startTestApp();
    try {
      const f = await createFirm(t.app, { publish: false });
      const id = await enqueue(t, f.orgId, 'logged@firm.example');
      await t.app.get(MailDispatcher).runOnce();
      await waitFor(async () => (await row(t, id)).status === 'logged', 'logged');
      expect(smtp.mails.filter((m) => m.to.includes('logged@firm.example'))).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('finished mail is deleted after 30 days by the retention runner; pending and recent mail stay', async () => {
    const t = await startTestApp();
    try {
      const f = await createFirm(t.app, { publish: false });
      const insert = (status: string, daysAgo: number) =>
        t.sql(
          `INSERT INTO mail_outbox (org_id, kind, to_address, subject, body, status, next_attempt_at, created_at)
           VALUES ($1, 'test', 'owner@firm.example', 's', 'b', $2, now(), now() - make_interval(days => $3)) RETURNING id`,
          [f.orgId, status, daysAgo],
        );
      const [[oldSent], [oldFailed], [oldPending], [recentSent]] = [
        await insert('sent', 31),
        await insert('failed', 40),
        await insert('pending', 45),
        await insert('logged', 29),
      ];
      // Rows dated before the table's day partitions sit in its DEFAULT partition: deleted one by one, pending kept.
      const run = await t.app.get(RetentionRunner).run('mail_outbox', 1);
      expect(run.deleted).toBe(2);
      const left = (await t.sql('SELECT id FROM mail_outbox WHERE org_id = $1', [f.orgId])).map((r) => r.id).sort();
      expect(left).toEqual([oldPending.id, recentSent.id].sort());
      expect(left).not.toContain(oldSent.id);
      expect(left).not.toContain(oldFailed.id);
    } finally {
      await t.close();
    }
  });

  it('an unreachable SMTP server is retried on a schedule, then the message fails', async () => {
    const t = await startTestApp({ env: { SMTP_URL: 'smtp://127.0.0.1:1' } });
    try {
      const f = await createFirm(t.app, { publish: false });
      const id = await enqueue(t, f.orgId, 'down@firm.example');
      const waits = [MIN, 5 * MIN, 30 * MIN, 120 * MIN];
      for (let i = 0; i < 5; i++) {
        if (i > 0) t.clock.advance(waits[i - 1]);
        await t.app.get(MailDispatcher).runOnce();
        const r = await waitFor(
          async () => {
            const x = await row(t, id);
            return x.attempt_count === i + 1 && x.locked_until === null ? x : null;
          },
          `attempt ${i + 1}`,
        );
        expect(r.last_error).toMatch(/ECONNREFUSED|connect/i);
        expect(r.status).toBe(i < 4 ? 'pending' : 'failed');
      }
    } finally {
      await t.close();
    }
  });
});
