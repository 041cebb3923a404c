import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { NotFoundError } from '../common/errors/problems.js';
import { isUuid } from '../common/ids.js';
import { cursorScopeOf } from '../common/http/principal.js';
import { KeysetCursors, splitPage, type KeysetPosition } from '../common/pagination/keyset.js';
import { EVENT_RETENTION_MS, EventsService } from '../events/index.js';
import { deliveryBody } from './delivery-body.js';
import { DeliveryHistoryRepository } from './delivery-history.repository.js';
import type { WebhookDeliveryDto } from './dto/webhook.dto.js';
import { WebhookDeliveriesRepository, type DeliveryPosition, type DeliveryRow } from './webhook-deliveries.repository.js';
import type { DeliveryStatus } from './webhook-model.js';
import { toDeliveryDto } from './webhook.mapper.js';

/** A firm in one mode (a console session's scope); the endpoint named is already known to be its own. */
type Scope = { orgId: string; livemode: boolean };

/** One hour's deliveries of one status (the console's chart). */
export interface HourlyDeliveries {
  /** The hour's start, ISO 8601 UTC. */
  hour: string;
  status: string;
  deliveries: number;
}

/** What one delivery's attempts sent: the body (null once its event is no longer kept) and the headers that vary. */
export interface SentRequest {
  body: string | null;
  webhookId: string;
  /** The webhook-timestamp of each attempt, oldest first. */
  timestamps: string[];
}

/** A delivery as the console shows it: what was sent, and for a failed one the redeliveries of its event since. */
export interface DeliveryView extends WebhookDeliveryDto {
  sent: SentRequest;
  resent: WebhookDeliveryDto[];
}

export interface DeliveryPageQuery {
  status?: DeliveryStatus;
  eventType?: string;
  /** The cursor of "Older" (the page after the last row shown). */
  older?: string;
  /** The cursor of "Newer" (the page before the first row shown). */
  newer?: string;
}

export interface DeliveryPage {
  deliveries: DeliveryView[];
  older: string | null;
  newer: string | null;
}

const HOUR_MS = 3600_000;
const OLDER = 'deliveries';
const NEWER = 'deliveries:newer';
const positionOf = (r: DeliveryRow): KeysetPosition => ({ at: r.createdAt.toISOString(), id: r.id });
const asRow = (p: KeysetPosition): DeliveryPosition => ({ createdAt: new Date(p.at), id: p.id });
/** Standard Webhooks' webhook-timestamp of an attempt: its start in whole seconds (signing.ts, webhookHeaders). */
const webhookTimestamp = (at: string) => String(Math.floor(Date.parse(at) / 1000));

/**
 * What an owner sees of one endpoint's deliveries in the console: pages either way by keyset cursors (the API's
 * `deliveries` kind for older pages, so its cursors stay one scheme), each delivery with what its attempts sent,
 * the redeliveries of a failed one's event, and the hourly counts of the chart.
 */
@Injectable()
export class DeliveryHistoryService {
  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly history: DeliveryHistoryRepository,
    private readonly events: EventsService,
    private readonly cursors: KeysetCursors,
    private readonly clock: Clock,
  ) {}

  /** A page of the endpoint's deliveries, newest first, with the cursors of the pages either side (null: none). */
  async page(scope: Scope, endpointId: string, q: DeliveryPageQuery, limit = 20): Promise<DeliveryPage> {
    const filters = { endpoint_id: endpointId, status: q.status, event_type: q.eventType };
    const firmId = cursorScopeOf(scope);
    const before = this.cursors.decode(OLDER, q.older, filters, firmId);
    const after = before ? null : this.cursors.decode(NEWER, q.newer, filters, firmId);
    const rows = await this.deliveries.list(scope.orgId, scope.livemode, {
      endpointId,
      status: q.status,
      eventType: q.eventType,
      since: this.keptSince(),
      before: before ? asRow(before) : undefined,
      after: after ? asRow(after) : undefined,
      limit: limit + 1,
    });
    const { items, hasMore } = splitPage(rows, limit);
    // A newer page was read oldest first, from just after its position: shown newest first like every page.
    const shown = after ? items.reverse() : items;
    const cursor = (kind: string, row: DeliveryRow | undefined) =>
      row ? this.cursors.encode(kind, positionOf(row), filters, firmId) : null;
    const hasOlder = after ? shown.length > 0 : hasMore;
    const hasNewer = after ? hasMore : before !== null;
    return {
      deliveries: await this.views(scope, endpointId, shown),
      older: hasOlder ? cursor(OLDER, shown.at(-1)) : null,
      newer: hasNewer ? cursor(NEWER, shown[0]) : null,
    };
  }

  /** One delivery of the endpoint (404 for any other id, like an unknown one). */
  async one(scope: Scope, endpointId: string, deliveryId: string): Promise<DeliveryView> {
    const row = isUuid(deliveryId) ? await this.deliveries.findForOrg(scope.orgId, deliveryId.toLowerCase(), this.keptSince()) : null;
    if (!row || row.endpointId !== endpointId) throw new NotFoundError('The webhook delivery');
    return (await this.views(scope, endpointId, [row]))[0];
  }

  /** The endpoint's deliveries per hour (of their creation) and status over the last `hours`, oldest first; only hours with deliveries. */
  async hourlyCounts(scope: Scope, endpointId: string, hours: number): Promise<HourlyDeliveries[]> {
    const since = new Date(Math.floor(this.clock.now().getTime() / HOUR_MS - hours + 1) * HOUR_MS);
    const rows = await this.history.countByHour(scope.orgId, scope.livemode, endpointId, since);
    return rows.map((r) => ({ hour: r.hour.toISOString(), status: r.status, deliveries: r.deliveries }));
  }

  private async views(scope: Scope, endpointId: string, rows: DeliveryRow[]): Promise<DeliveryView[]> {
    const failed = [...new Set(rows.filter((r) => r.status === 'failed').map((r) => r.eventId))];
    const redeliveries = failed.length ? await this.history.redeliveriesOf(scope.orgId, endpointId, failed, this.keptSince()) : [];
    const bodies = await this.bodies(scope, rows);
    return rows.map((r) => ({
      ...toDeliveryDto(r),
      sent: { body: bodies.get(r.eventId) ?? null, webhookId: r.eventId, timestamps: r.attempts.map((a) => webhookTimestamp(a.at)) },
      resent:
        r.status === 'failed'
          ? redeliveries.filter((x) => x.eventId === r.eventId && x.createdAt.getTime() > r.createdAt.getTime()).map(toDeliveryDto)
          : [],
    }));
  }

  /** Each event's body exactly as its attempts sent it (the envelope GET /v1/events/{id} answers), by event id. */
  private async bodies(scope: Scope, rows: DeliveryRow[]): Promise<Map<string, string>> {
    const bodies = new Map<string, string>();
    // One short read each, one after the other: at most a page's 20 events, on a page a person opened.
    for (const eventId of new Set(rows.map((r) => r.eventId))) {
      const envelope = await this.events.findKept(scope, eventId);
      if (envelope) bodies.set(eventId, deliveryBody(envelope));
    }
    return bodies;
  }

  private keptSince(): Date {
    return new Date(this.clock.now().getTime() - EVENT_RETENTION_MS);
  }
}
