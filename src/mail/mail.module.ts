import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailOutboxEntity } from './entities/mail-outbox.entity.js';
import { MailDispatcher } from './mail-dispatcher.service.js';
import { MailRepository } from './mail.repository.js';
import { MailService } from './mail.service.js';

/** Enqueueing owner email (every role, the CLI included). */
@Module({
  imports: [TypeOrmModule.forFeature([MailOutboxEntity])],
  providers: [MailRepository, MailService],
  exports: [MailService, MailRepository],
})
export class MailModule {}

/** Sending it: the worker roles of the HTTP/worker app only, never the CLI. */
@Module({ imports: [MailModule], providers: [MailDispatcher], exports: [MailDispatcher] })
export class MailWorkerModule {}
