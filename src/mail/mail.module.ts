import { Module, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RetentionRunner } from '../common/retention/retention-runner.js';
import { MailDispatcher } from './mail-dispatcher.service.js';
import { MailRepository, STILL_PENDING } from './mail.repository.js';
import { MailService } from './mail.service.js';
import { MailOutboxEntity } from './entities/mail-outbox.entity.js';

export const MAIL_RETENTION_MS = 30 * 86_400_000;

/** Enqueueing owner email (every role, the CLI included). */
@Module({
  imports: [TypeOrmModule.forFeature([MailOutboxEntity])],
  providers: [MailRepository, MailService],
  exports: [MailService, MailRepository],
})
export class MailModule implements OnModuleInit {
  constructor(private readonly retention: RetentionRunner) {}

  /**
   * Finished mail (sent, logged or failed) is kept 30 days; pending mail is never removed: a day's partition
   * still holding pending mail stays (only its finished rows go) until a later run finds it finished.
   */
  onModuleInit(): void {
    this.retention.register({ table: 'mail_outbox', maxAgeMs: MAIL_RETENTION_MS, keepWhere: STILL_PENDING });
  }
}

/** Sending it: the worker roles of the HTTP/worker app only, never the CLI. */
@Module({ imports: [MailModule], providers: [MailDispatcher], exports: [MailDispatcher] })
export class MailWorkerModule {}
