import { Controller, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CONSOLE_SESSION, Endpoint } from '../common/http/access.decorators.js';
import { ConsolePagesService } from './console-pages.service.js';
import { sendSessionPage } from './console-replies.js';
import { CurrentConsoleSession, type ConsoleSession } from './console-session.js';
import { ConsoleViews } from './console-views.js';

/** "Event types" (linked from every page's header): what each type an endpoint can subscribe to means and carries. */
@Controller('console')
export class ConsoleEventTypesController {
  constructor(
    private readonly pages: ConsolePagesService,
    private readonly views: ConsoleViews,
  ) {}

  @Endpoint({ method: 'GET', path: 'event-types', access: CONSOLE_SESSION, browser: true })
  async eventTypes(@CurrentConsoleSession() session: ConsoleSession, @Res() reply: FastifyReply): Promise<void> {
    sendSessionPage(reply, this.views, 'event-types', await this.pages.eventTypesPage(session));
  }
}
