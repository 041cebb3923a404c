import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import type { Transporter } from 'nodemailer';
import { Clock } from '../common/clock.js';
import { DatabaseOutage } from '../common/ops/database-outage.js';
import { AppConfig } from '../config/app-config.js';
import { MailRepository } from './mail.repository.js';

/** Waits after a failed send; its length + 1 is the attempt budget. */
const MAIL_RETRY_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000];
const LEASE_SECONDS = 120;

/**
 * Sends the outbox (worker roles only) over SMTP_URL with nodemailer. Without
 * SMTP_URL a message is logged (recipient, subject and text; messages never
 * hold secrets) and marked `logged`.
 */
@Injectable()
export class MailDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(MailDispatcher.name);
  private transport: Transporter | null = null;
  private running: Promise<number> | null = null;
  private active = false;

  constructor(
    private readonly mail: MailRepository,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly outage: DatabaseOutage,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.runsWorker) return;
    if (this.config.smtpUrl) {
      // Loaded only where mail is sent over SMTP: the CLI, the API role and a worker without SMTP_URL never need it.
      const { default: nodemailer } = await import('nodemailer');
      this.transport = nodemailer.createTransport(this.config.smtpUrl);
    } else {
      // The documented default for development: informational, not a warning.
      this.logger.log('SMTP_URL is not set: owner emails are written to the log instead of being sent');
    }
    // Only once the transport exists: a poll before it would log a message instead of sending it.
    this.active = true;
  }

  @Interval('mail-outbox', 1000)
  async poll(): Promise<void> {
    if (!this.active) return;
    await this.runOnce().catch((err) => {
      // An unreachable database is logged once per outage (DatabaseOutage), not at every 1 s poll.
      if (!this.outage.backgroundFailed(err, 'the mail outbox'))
        this.logger.warn({ err: String(err) }, 'mail outbox run failed; will retry');
    });
  }

  /** Sends everything due now; returns how many messages were handled. Concurrent calls share one run. */
  runOnce(): Promise<number> {
    this.running ??= this.drain().finally(() => (this.running = null));
    return this.running;
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.active = false;
    await this.running?.catch(() => undefined);
    this.transport?.close();
  }

  private async drain(): Promise<number> {
    let handled = 0;
    for (;;) {
      const batch = await this.mail.claim(this.clock.now(), 20, LEASE_SECONDS);
      for (const m of batch) {
        try {
          if (this.transport) {
            await this.transport.sendMail({ from: this.config.mailFrom, to: m.toAddress, subject: m.subject, text: m.body });
            await this.mail.markDone(m.id, 'sent', this.clock.now());
          } else {
            this.logger.log(
              { mail_id: m.id, kind: m.kind, to: m.toAddress, subject: m.subject, body: m.body },
              'email (not sent: SMTP_URL is not set)',
            );
            await this.mail.markDone(m.id, 'logged', this.clock.now());
          }
        } catch (err) {
          const wait = MAIL_RETRY_MS[m.attemptCount - 1];
          const next = wait === undefined ? null : new Date(this.clock.now().getTime() + wait);
          const reason = err instanceof Error ? err.message : String(err);
          this.logger.warn(
            { mail_id: m.id, kind: m.kind, attempt: m.attemptCount, error: reason, final: next === null },
            'email could not be sent',
          );
          await this.mail.markFailedAttempt(m.id, reason, next);
        }
        handled++;
      }
      if (batch.length < 20) return handled;
    }
  }
}
