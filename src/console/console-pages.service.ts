import { Injectable } from '@nestjs/common';
import { AccountService } from '../account/index.js';
import { SUBSCRIBABLE_EVENT_TYPES } from '../events/index.js';
import {
  DeliveryHistoryService,
  MAX_ENDPOINTS_PER_FIRM,
  WebhookDeliveriesService,
  WebhookEndpointsService,
  type WebhookDeliveryDto,
  type WebhookEndpointDto,
} from '../webhooks/index.js';
import { chartHours, type ChartHour } from './chart-hours.js';
import type { ConsoleSession } from './console-session.js';

/** What every page shows in its header. */
export interface PageFrame {
  firm: string;
  livemode: boolean;
  csrfToken: string;
}

export interface EndpointListPage extends PageFrame {
  endpoints: WebhookEndpointDto[];
  maxEndpoints: number;
  eventTypes: readonly string[];
}

export interface EndpointPage extends PageFrame {
  endpoint: WebhookEndpointDto;
  deliveries: WebhookDeliveryDto[];
  nextCursor: string | null;
  /** The page is not the first (a cursor was followed). */
  older: boolean;
}

export interface DeliveriesPerHour {
  endpoint_id: string;
  last_24_hours: ChartHour[];
  last_7_days: ChartHour[];
}

const DELIVERIES_PER_PAGE = 20;

/** What the console's pages show, read through the webhooks context's own services (the API's reads). */
@Injectable()
export class ConsolePagesService {
  constructor(
    private readonly account: AccountService,
    private readonly endpoints: WebhookEndpointsService,
    private readonly deliveries: WebhookDeliveriesService,
    private readonly history: DeliveryHistoryService,
  ) {}

  async frame(session: ConsoleSession): Promise<PageFrame> {
    const org = await this.account.getOrg(session.orgId);
    return { firm: org.displayName ?? org.slug, livemode: session.livemode, csrfToken: session.csrfToken };
  }

  /** One of the session's endpoints (404 for any other id). */
  endpoint(session: ConsoleSession, endpointId: string): Promise<WebhookEndpointDto> {
    return this.endpoints.get(session, endpointId);
  }

  async endpointList(session: ConsoleSession): Promise<EndpointListPage> {
    const [frame, endpoints] = await Promise.all([this.frame(session), this.endpoints.list(session.orgId, session.livemode)]);
    return { ...frame, endpoints, maxEndpoints: MAX_ENDPOINTS_PER_FIRM, eventTypes: SUBSCRIBABLE_EVENT_TYPES };
  }

  /** The endpoint and one page of its deliveries, newest first (the API's keyset pages and cursors). */
  async endpointPage(session: ConsoleSession, endpointId: string, cursor: string | undefined): Promise<EndpointPage> {
    const endpoint = await this.endpoints.get(session, endpointId);
    const [frame, page] = await Promise.all([
      this.frame(session),
      this.deliveries.list(session, { endpoint_id: endpoint.id, cursor, limit: DELIVERIES_PER_PAGE }),
    ]);
    return { ...frame, endpoint, deliveries: page.deliveries, nextCursor: page.next_cursor, older: cursor !== undefined };
  }

  /** The chart's data: the endpoint's deliveries per hour by status, over the last 24 hours and the last 7 days. */
  async deliveriesPerHour(session: ConsoleSession, endpointId: string, now: Date): Promise<DeliveriesPerHour> {
    const endpoint = await this.endpoints.get(session, endpointId);
    const rows = await this.history.hourlyCounts(session, endpoint.id, 7 * 24);
    return { endpoint_id: endpoint.id, last_24_hours: chartHours(rows, 24, now), last_7_days: chartHours(rows, 7 * 24, now) };
  }
}
