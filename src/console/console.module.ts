import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountModule } from '../account/index.js';
import { AuditModule } from '../audit/index.js';
import { WebhooksModule } from '../webhooks/index.js';
import { ConsoleActionsController } from './console-actions.controller.js';
import { ConsoleActionsService } from './console-actions.service.js';
import { ConsoleAddressesController } from './console-addresses.controller.js';
import { ConsoleEventTypesController } from './console-event-types.controller.js';
import { ConsoleGate } from './console-gate.js';
import { ConsoleHttp } from './console-http.js';
import { ConsolePagesController } from './console-pages.controller.js';
import { ConsolePagesService } from './console-pages.service.js';
import { ConsoleProblemPages } from './console-problem-pages.js';
import { ConsoleSessionsRepository } from './console-sessions.repository.js';
import { ConsoleSessionsService } from './console-sessions.service.js';
import { ConsoleSignInController } from './console-sign-in.controller.js';
import { ConsoleSignInService } from './console-sign-in.service.js';
import { ConsoleViews } from './console-views.js';
import { ConsoleLinkEntity } from './entities/console-link.entity.js';
import { ConsoleSessionEntity } from './entities/console-session.entity.js';

/**
 * The endpoint owner's console: pages served by the service itself, entered through a one-time link the dashboard
 * (the CLI's `console link`) mints. Its sessions live in PostgreSQL, so any api process serves any session. Its
 * Fastify plugins (cookie, form body, security headers, CSRF) are registered by ConsoleHttp where the app is built.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ConsoleLinkEntity, ConsoleSessionEntity]), AccountModule, AuditModule, WebhooksModule],
  controllers: [
    ConsoleSignInController,
    ConsolePagesController,
    ConsoleActionsController,
    ConsoleAddressesController,
    ConsoleEventTypesController,
  ],
  providers: [
    ConsoleSessionsRepository,
    ConsoleSignInService,
    ConsoleSessionsService,
    ConsoleGate,
    ConsolePagesService,
    ConsoleActionsService,
    ConsoleViews,
    ConsoleProblemPages,
    ConsoleHttp,
  ],
  exports: [ConsoleSignInService, ConsoleSessionsService, ConsoleGate, ConsoleHttp],
})
export class ConsoleModule {}
