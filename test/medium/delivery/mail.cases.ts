import { RetentionRunner } from '../../../src/common/retention/retention-runner';
import { Database } from '../../../src/database/sql';
import { MailDispatcher, MailService, MailWorkerModule } from '../../../src/mail';
import { createFirm } from '../../support/factories';
import { newMediumService, type MediumService } from '../../support/medium';
import { mailText, startSmtp } from '../../support/smtp';

const MIN = 60_000;

/**
 * The owner email outbox: MailService enqueues in the caller's transaction, MailDispatcher (the worker roles) sends
 * it over SMTP_URL or logs it, retrying on a schedule; the medium tier drives the dispatcher run by run (no timer).
 */
describe('owner email outbox (MailService, MailDispatcher)', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  beforeAll(async () => {
    smtp = await startSmtp();
  });
  afterAll(() => smtp.close());

  const withMail = (env: Record<string, string> = {}) => newMediumService(MailDispatcher, { env, imports: [MailWorkerModule] });
  const enqueue = (m: MediumService<MailDispatcher>, orgId: string, to: string, fail = false) =>
    m.module.get(Database).transaction(async (tx) => {
      const id = await m.module
        .get(MailService)
        .enqueue(tx, { orgId, kind: 'test.notice', to, subject: 'Webhook notice ✓', body: 'Line one.\nLine two: ünïcode.' });
      if (fail) throw new Error('rolled back');
      return id;
    });
  const row = async (m: MediumService<MailDispatcher>, id: string) => (await m.sql(`SELECT * FROM mail_outbox WHERE id = $1`, [id]))[0];
  const firmOf = async (m: MediumService<MailDispatcher>) => (await createFirm(m.module, { publish: false })).orgId;

  describe('with SMTP_URL', () => {
    let m: MediumService<MailDispatcher>;
    beforeAll(async () => {
      m = await withMail({ SMTP_URL: smtp.url, MAIL_FROM: 'Receptionist <hooks@service.example>' });
    });
    afterAll(() => m.close());

    it('sends what the transaction wrote, once, over SMTP', async () => {
      const id = await enqueue(m, await firmOf(m), 'owner@firm.example');
      expect(await m.sut.runOnce()).toBeGreaterThanOrEqual(1);
      const sent = await row(m, id);
      expect(sent).toMatchObject({ status: 'sent', attempt_count: 1 });
      expect(sent.sent_at).toBeInstanceOf(Date);
      const mails = smtp.mails.filter((x) => x.to.includes('owner@firm.example'));
      expect(mails).toHaveLength(1);
      expect(mails[0].from).toBe('hooks@service.example');
      expect(mails[0].raw).toMatch(/^From: Receptionist <hooks@service\.example>/m);
      expect(mails[0].raw).toMatch(/^To: owner@firm\.example/m);
      expect(mailText(mails[0].raw)).toContain('Line two: ünïcode.');
      await m.sut.runOnce();
      expect(smtp.mails.filter((x) => x.to.includes('owner@firm.example'))).toHaveLength(1);
    });

    it('a rolled-back transaction sends nothing', async () => {
      await expect(enqueue(m, await firmOf(m), 'never@firm.example', true)).rejects.toThrow('rolled back');
      await m.sut.runOnce();
      expect(await m.sql(`SELECT 1 FROM mail_outbox WHERE to_address = 'never@firm.example'`)).toEqual([]);
      expect(smtp.mails.filter((x) => x.to.includes('never@firm.example'))).toEqual([]);
    });
  });

  describe('without SMTP_URL', () => {
    let m: MediumService<MailDispatcher>;
    beforeAll(async () => {
      m = await withMail();
    });
    afterAll(() => m.close());

    it('the message is logged and marked so', async () => {
      const id = await enqueue(m, await firmOf(m), 'logged@firm.example');
      await m.sut.runOnce();
      expect((await row(m, id)).status).toBe('logged');
      expect(smtp.mails.filter((x) => x.to.includes('logged@firm.example'))).toEqual([]);
    });

    it('finished mail is deleted after 30 days by the retention runner; pending and recent mail stay', async () => {
      const orgId = await firmOf(m);
      const insert = async (status: string, daysAgo: number) =>
        (
          await m.sql(
            `INSERT INTO mail_outbox (org_id, kind, to_address, subject, body, status, next_attempt_at, created_at)
             VALUES ($1, 'test', 'owner@firm.example', 's', 'b', $2, now(), now() - make_interval(days => $3)) RETURNING id`,
            [orgId, status, daysAgo],
          )
        )[0].id as string;
      const [oldSent, oldFailed, oldPending, recentSent] = [
        await insert('sent', 31),
        await insert('failed', 40),
        await insert('pending', 45),
        await insert('logged', 29),
      ];
      // Rows dated before the table's day partitions sit in its DEFAULT partition: deleted one by one, pending kept.
      const run = await m.module.get(RetentionRunner).run('mail_outbox', 1);
      expect(run.deleted).toBe(2);
      const left = (await m.sql('SELECT id FROM mail_outbox WHERE org_id = $1', [orgId])).map((r) => r.id).sort();
      expect(left).toEqual([oldPending, recentSent].sort());
      expect(left).not.toContain(oldSent);
      expect(left).not.toContain(oldFailed);
    });
  });

  describe('with an unreachable SMTP server', () => {
    let m: MediumService<MailDispatcher>;
    beforeAll(async () => {
      m = await withMail({ SMTP_URL: 'smtp://127.0.0.1:1' });
    });
    afterAll(() => m.close());

    it('retries on a schedule, then the message fails', async () => {
      const id = await enqueue(m, await firmOf(m), 'down@firm.example');
      const waits = [MIN, 5 * MIN, 30 * MIN, 120 * MIN];
      for (let i = 0; i < 5; i++) {
        if (i > 0) {
          // Not due a moment before its wait has passed.
          m.clock.advance(waits[i - 1] - 1000);
          await m.sut.runOnce();
          expect((await row(m, id)).attempt_count).toBe(i);
          m.clock.advance(1000);
        }
        await m.sut.runOnce();
        const r = await row(m, id);
        expect({ attempt: r.attempt_count, locked: r.locked_until }).toEqual({ attempt: i + 1, locked: null });
        expect(r.last_error).toMatch(/ECONNREFUSED|connect/i);
        expect(r.status).toBe(i < 4 ? 'pending' : 'failed');
      }
    });
  });
});
