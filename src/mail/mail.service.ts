import { Injectable } from '@nestjs/common';
import type { Tx } from '../database/sql.js';
import { Clock } from '../common/clock.js';
import { MailRepository } from './mail.repository.js';

export interface MailMessage {
  orgId: string | null;
  /** What it is about, e.g. webhook.delivery_failed; for logs and tests. */
  kind: string;
  to: string;
  subject: string;
  /** Plain text. Never put a secret, key or token in it. */
  body: string;
}

/**
 * The mail outbox. A message is written in the transaction that decided to
 * send it, so it goes out exactly when that decision commits; the worker's
 * MailDispatcher sends it.
 */
@Injectable()
export class MailService {
  constructor(
    private readonly mail: MailRepository,
    private readonly clock: Clock,
  ) {}

  async enqueue(tx: Tx, message: MailMessage): Promise<string> {
    return this.mail.insert(tx, { ...message, now: this.clock.now() });
  }
}
