import { Injectable } from '@nestjs/common';
import { AccountService } from '../account/index.js';
import { EVENT_TYPES, eventTypeReference, SUBSCRIBABLE_EVENT_TYPES, type EventTypeReference } from '../events/index.js';
import {
  DeliveryHistoryService,
  DELIVERY_STATUSES,
  MAX_ENDPOINTS_PER_FIRM,
  WebhookEndpointsService,
  type DeliveryPageQuery,
  type DeliveryView,
  type WebhookEndpointDto,
} from '../webhooks/index.js';
import { chartHours, type ChartHour } from './chart-hours.js';
import type { ConsoleSession } from './console-session.js';
import { timeIn, zoneAbbreviation } from './console-text.js';
import { CONSOLE_PATH } from './console-tokens.js';

/** What every page shows in its header, and how it shows times (the firm's zone). */
export interface PageFrame {
  firm: string;
  livemode: boolean;
  readOnly: boolean;
  timezone: string;
  /** An instant in the firm's time with the zone's abbreviation. */
  at: (instant: string | Date | null | undefined) => string;
  /** When the session ends, in the firm's time. */
  sessionEnds: string;
}

export interface EndpointListPage extends PageFrame {
  endpoints: WebhookEndpointDto[];
  maxEndpoints: number;
  eventTypes: readonly string[];
}

export interface EndpointPage extends PageFrame {
  endpoint: WebhookEndpointDto;
  deliveries: DeliveryView[];
  filter: { status: string; eventType: string };
  statuses: readonly string[];
  eventTypes: readonly string[];
  /** The pager's links, with the filter kept; null where there is no page that way. */
  olderHref: string | null;
  newerHref: string | null;
  filtered: boolean;
}

export interface DeliveriesPerHour {
  endpoint_id: string;
  /** The firm's zone, in which the chart's axis and legend show the hours. */
  timezone: string;
  zone: string;
  last_24_hours: ChartHour[];
  last_7_days: ChartHour[];
}

/** The endpoint page's address with these query parameters (the empty ones left out). */
export function endpointHref(endpointId: string, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
  const search = params.toString();
  return `${CONSOLE_PATH}/endpoints/${encodeURIComponent(endpointId)}${search ? `?${search}` : ''}`;
}

/** What the console's pages show, read through the webhooks and events contexts' own services (the API's reads). */
@Injectable()
export class ConsolePagesService {
  constructor(
    private readonly account: AccountService,
    private readonly endpoints: WebhookEndpointsService,
    private readonly history: DeliveryHistoryService,
  ) {}

  async frame(session: ConsoleSession): Promise<PageFrame> {
    const org = await this.account.getOrg(session.orgId);
    const at = timeIn(org.timezone);
    return {
      firm: org.displayName ?? org.slug,
      livemode: session.livemode,
      readOnly: session.readOnly,
      timezone: org.timezone,
      at,
      sessionEnds: at(session.expiresAt),
    };
  }

  /** One of the session's endpoints (404 for any other id). */
  endpoint(session: ConsoleSession, endpointId: string): Promise<WebhookEndpointDto> {
    return this.endpoints.get(session, endpointId);
  }

  async endpointList(session: ConsoleSession): Promise<EndpointListPage> {
    const [frame, endpoints] = await Promise.all([this.frame(session), this.endpoints.list(session.orgId, session.livemode)]);
    return { ...frame, endpoints, maxEndpoints: MAX_ENDPOINTS_PER_FIRM, eventTypes: SUBSCRIBABLE_EVENT_TYPES };
  }

  /** The endpoint and one page of its deliveries, newest first, filtered, 20 a page either way. */
  async endpointPage(session: ConsoleSession, endpointId: string, q: DeliveryPageQuery): Promise<EndpointPage> {
    const endpoint = await this.endpoints.get(session, endpointId);
    const [frame, page] = await Promise.all([this.frame(session), this.history.page(session, endpoint.id, q)]);
    const filter = { status: q.status, event_type: q.eventType };
    return {
      ...frame,
      endpoint,
      deliveries: page.deliveries,
      filter: { status: q.status ?? '', eventType: q.eventType ?? '' },
      statuses: DELIVERY_STATUSES,
      eventTypes: EVENT_TYPES,
      olderHref: page.older === null ? null : endpointHref(endpoint.id, { ...filter, cursor: page.older }),
      newerHref: page.newer === null ? null : endpointHref(endpoint.id, { ...filter, newer: page.newer }),
      filtered: q.status !== undefined || q.eventType !== undefined,
    };
  }

  /** One delivery of the endpoint, on a page of its own (where a failed delivery's "resent" links lead). */
  async deliveryPage(session: ConsoleSession, endpointId: string, deliveryId: string) {
    const endpoint = await this.endpoints.get(session, endpointId);
    const [frame, delivery] = await Promise.all([this.frame(session), this.history.one(session, endpoint.id, deliveryId)]);
    return { ...frame, endpoint, delivery };
  }

  /** The edit form: the endpoint's description and every type it may subscribe to. */
  async editPage(session: ConsoleSession, endpointId: string) {
    const [frame, endpoint] = await Promise.all([this.frame(session), this.endpoints.get(session, endpointId)]);
    return { ...frame, endpoint, eventTypes: SUBSCRIBABLE_EVENT_TYPES };
  }

  /** Each type an endpoint may subscribe to, from the catalogue that types the OpenAPI document. */
  async eventTypesPage(session: ConsoleSession): Promise<PageFrame & { types: EventTypeReference[] }> {
    return { ...(await this.frame(session)), types: eventTypeReference() };
  }

  /** The chart's data: the endpoint's deliveries per hour by status, over the last 24 hours and the last 7 days. */
  async deliveriesPerHour(session: ConsoleSession, endpointId: string, now: Date): Promise<DeliveriesPerHour> {
    const endpoint = await this.endpoints.get(session, endpointId);
    const [org, rows] = await Promise.all([this.account.getOrg(session.orgId), this.history.hourlyCounts(session, endpoint.id, 7 * 24)]);
    return {
      endpoint_id: endpoint.id,
      timezone: org.timezone,
      zone: zoneAbbreviation(org.timezone, now),
      last_24_hours: chartHours(rows, 24, now),
      last_7_days: chartHours(rows, 7 * 24, now),
    };
  }
}
