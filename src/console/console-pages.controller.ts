import { Controller, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CHECKED_BY_SERVICE, CONSOLE_SESSION, Endpoint, type EndpointSpec } from '../common/http/access.decorators.js';
import { PathParam } from '../common/http/route-input.js';
import { Clock } from '../common/clock.js';
import { ConsolePagesService, type DeliveriesPerHour } from './console-pages.service.js';
import { CurrentConsoleSession, type ConsoleSession } from './console-session.js';
import { ConsoleViews } from './console-views.js';
import { EndpointListQueryDto, EndpointPageQueryDto, NOTICES } from './dto/console-forms.dto.js';
import { sendSessionPage } from './console-replies.js';

const ENDPOINT = { endpoint_id: CHECKED_BY_SERVICE };
const page = (
  path: string | undefined,
  params: EndpointSpec['params'] = ENDPOINT,
  query: EndpointSpec['query'] = 'none',
): EndpointSpec => ({
  method: 'GET',
  path,
  access: CONSOLE_SESSION,
  params,
  query,
  browser: true,
});

/** The console's pages: the firm's endpoints, one endpoint with its deliveries and chart, one delivery, the edit form. */
@Controller('console/endpoints')
export class ConsolePagesController {
  constructor(
    private readonly pages: ConsolePagesService,
    private readonly views: ConsoleViews,
    private readonly clock: Clock,
  ) {}

  @Endpoint(page(undefined, {}, EndpointListQueryDto))
  async list(@CurrentConsoleSession() session: ConsoleSession, @Query() q: EndpointListQueryDto, @Res() reply: FastifyReply) {
    const data = await this.pages.endpointList(session);
    sendSessionPage(reply, this.views, 'endpoints', { ...data, notice: q.done ? NOTICES[q.done] : null });
  }

  /**
   * The endpoint, its chart, and a page of its deliveries: filtered by `status` and `event_type` (an unknown value is
   * a plain 400 page), 20 a page, "Older" and "Newer" by cursor. Another firm's or mode's id answers 404 like an unknown one.
   */
  @Endpoint(page(':endpoint_id', ENDPOINT, EndpointPageQueryDto))
  async endpoint(
    @CurrentConsoleSession() session: ConsoleSession,
    @PathParam('endpoint_id') endpointId: string,
    @Query() q: EndpointPageQueryDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const query = { status: q.status, eventType: q.event_type, older: q.cursor, newer: q.newer };
    const data = await this.pages.endpointPage(session, endpointId, query);
    sendSessionPage(reply, this.views, 'endpoint', { ...data, notice: q.done ? NOTICES[q.done] : null });
  }

  /** One delivery, with what was sent and what became of it (a failed delivery's "resent" link leads here). */
  @Endpoint(page(':endpoint_id/deliveries/:delivery_id', { endpoint_id: CHECKED_BY_SERVICE, delivery_id: CHECKED_BY_SERVICE }))
  async delivery(
    @CurrentConsoleSession() session: ConsoleSession,
    @PathParam('endpoint_id') endpointId: string,
    @PathParam('delivery_id') deliveryId: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    sendSessionPage(reply, this.views, 'delivery', await this.pages.deliveryPage(session, endpointId, deliveryId));
  }

  /** "Edit endpoint": its description and event types (its URL cannot change), saved with "Save". */
  @Endpoint(page(':endpoint_id/edit'))
  async edit(@CurrentConsoleSession() session: ConsoleSession, @PathParam('endpoint_id') endpointId: string, @Res() reply: FastifyReply) {
    sendSessionPage(reply, this.views, 'edit', await this.pages.editPage(session, endpointId));
  }

  /** The chart's data (drawn by console.js with uPlot): deliveries per hour by status, last 24 hours and 7 days. */
  @Endpoint(page(':endpoint_id/deliveries-per-hour'))
  deliveriesPerHour(
    @CurrentConsoleSession() session: ConsoleSession,
    @PathParam('endpoint_id') endpointId: string,
  ): Promise<DeliveriesPerHour> {
    return this.pages.deliveriesPerHour(session, endpointId, this.clock.now());
  }
}
