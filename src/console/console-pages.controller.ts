import { Controller, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CHECKED_BY_SERVICE, CONSOLE_SESSION, Endpoint } from '../common/http/access.decorators.js';
import { PathParam } from '../common/http/route-input.js';
import { Clock } from '../common/clock.js';
import { ConsolePagesService, type DeliveriesPerHour } from './console-pages.service.js';
import { CurrentConsoleSession, type ConsoleSession } from './console-session.js';
import { ConsoleViews } from './console-views.js';
import { EndpointListQueryDto, EndpointPageQueryDto, NOTICES } from './dto/console-forms.dto.js';
import { sendPage } from './console-replies.js';

const ENDPOINT = { endpoint_id: CHECKED_BY_SERVICE };

/** The console's pages: the firm's endpoints, and one endpoint with its deliveries and chart. */
@Controller('console/endpoints')
export class ConsolePagesController {
  constructor(
    private readonly pages: ConsolePagesService,
    private readonly views: ConsoleViews,
    private readonly clock: Clock,
  ) {}

  @Endpoint({ method: 'GET', access: CONSOLE_SESSION, query: EndpointListQueryDto, browser: true })
  async list(
    @CurrentConsoleSession() session: ConsoleSession,
    @Query() q: EndpointListQueryDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const page = await this.pages.endpointList(session);
    sendPage(reply, this.views.render('endpoints', { ...page, notice: q.done ? NOTICES[q.done] : null }));
  }

  /** Another firm's or another mode's endpoint id answers 404, exactly like an unknown one. */
  @Endpoint({ method: 'GET', path: ':endpoint_id', access: CONSOLE_SESSION, params: ENDPOINT, query: EndpointPageQueryDto, browser: true })
  async endpoint(
    @CurrentConsoleSession() session: ConsoleSession,
    @PathParam('endpoint_id') endpointId: string,
    @Query() q: EndpointPageQueryDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const page = await this.pages.endpointPage(session, endpointId, q.cursor);
    sendPage(reply, this.views.render('endpoint', { ...page, notice: q.done ? NOTICES[q.done] : null }));
  }

  /** The chart's data (drawn by console.js with uPlot): deliveries per hour by status, last 24 hours and 7 days. */
  @Endpoint({ method: 'GET', path: ':endpoint_id/deliveries-per-hour', access: CONSOLE_SESSION, params: ENDPOINT, browser: true })
  deliveriesPerHour(
    @CurrentConsoleSession() session: ConsoleSession,
    @PathParam('endpoint_id') endpointId: string,
  ): Promise<DeliveriesPerHour> {
    return this.pages.deliveriesPerHour(session, endpointId, this.clock.now());
  }
}
