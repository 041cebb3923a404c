import { Injectable, Logger } from '@nestjs/common';
import { Database, type Tx } from '../database/sql.js';
import { AuditService, type AuditActor } from '../audit/index.js';
import { Clock } from '../common/clock.js';
import { InvalidRequestError, NotFoundError, RateLimitedError } from '../common/errors/problems.js';
import { EndpointDisabledError } from './webhooks.errors.js';
import { KeysetCursors } from '../common/pagination/keyset.js';
import { EVENT_RETENTION_MS, EVENT_RETENTION_TEXT, EventsService } from '../events/index.js';
import type { ListDeliveriesQueryDto, WebhookDeliveryDto, WebhookDeliveryListDto } from './dto/webhook.dto.js';
import { WebhookDeliveriesRepository, type DeliveryRow } from './webhook-deliveries.repository.js';
import type { WebhookEndpointEntity } from './entities/webhook-endpoint.entity.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';
import { toDeliveryDto } from './webhook.mapper.js';
import { DELIVERY_PAGE, MANUAL_SENDS_PER_MINUTE, MANUAL_SENDS_WINDOW_MS } from './webhook-rules.js';
import { isUuid } from '../common/ids.js';
import { turnOf, WriteTurns } from '../common/write-turns.js';
import { cursorScopeOf, type ApiPrincipal } from '../common/http/principal.js';

/** A key's firm and mode: it sees only that mode's endpoints and their deliveries. */
type KeyScope = Pick<ApiPrincipal, 'orgId' | 'livemode'>;

export const TEST_EVENT_MESSAGE = 'This is a test event sent from the API. It refers to no call or lead.';

function requireUuid(value: string, param: string): string {
  if (!isUuid(value)) throw new InvalidRequestError(`${param} must be a uuid.`, param);
  return value.toLowerCase();
}

/** The deliveries API: list, send a test event, redeliver. */
@Injectable()
export class WebhookDeliveriesService {
  private readonly logger = new Logger('WebhookDeliveries');

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly events: EventsService,
    private readonly cursors: KeysetCursors,
    private readonly clock: Clock,
    private readonly db: Database,
    private readonly turns: WriteTurns,
    private readonly audit: AuditService,
  ) {}

  async list(scope: KeyScope, q: ListDeliveriesQueryDto): Promise<WebhookDeliveryListDto> {
    const { orgId, livemode } = scope;
    const filters = { endpoint_id: q.endpoint_id?.toLowerCase(), event_id: q.event_id, status: q.status };
    const after = this.cursors.decode('deliveries', q.cursor, filters, cursorScopeOf(scope));
    const before = after ? { createdAt: new Date(after.at), id: after.id } : undefined;
    const limit = q.limit ?? DELIVERY_PAGE.default;
    const rows = await this.deliveries.list(orgId, livemode, {
      endpointId: filters.endpoint_id,
      eventId: filters.event_id,
      status: filters.status,
      since: this.keptSince(),
      before,
      limit: limit + 1,
    });
    const page = this.cursors.page('deliveries', rows, limit, { filters, firmId: cursorScopeOf(scope) }, (r) => ({
      at: r.createdAt.toISOString(),
      id: r.id,
    }));
    return { deliveries: page.items.map(toDeliveryDto), has_more: page.hasMore, next_cursor: page.nextCursor };
  }

  /**
   * One new webhook.test event and one delivery of it to this endpoint only, in one transaction. Test sends and
   * resends of one endpoint take turns in this process before they take a connection (they count under its row lock).
   * With an `actor` (the console), the audit log records who asked, in the same transaction.
   */
  async sendTest(scope: KeyScope, endpointIdParam: string, actor?: AuditActor): Promise<WebhookDeliveryDto> {
    const { orgId, livemode } = scope;
    const endpointId = requireUuid(endpointIdParam, 'endpoint_id');
    const sent = await this.turns.run(turnOf.endpoint(endpointId), () => this.sendTestNow(orgId, livemode, endpointId, actor));
    return this.queued(sent);
  }

  private sendTestNow(orgId: string, livemode: boolean, endpointId: string, actor?: AuditActor): Promise<WebhookDeliveryDto> {
    return this.db.transaction(async (tx) => {
      const endpoint = await this.endpoints.lockForOrg(tx, orgId, livemode, endpointId);
      if (!endpoint) throw new NotFoundError('The webhook endpoint');
      const now = this.clock.now();
      await this.checkSendable(tx, endpoint, now);
      const event = await this.events.record(tx, {
        orgId,
        livemode: endpoint.livemode,
        type: 'webhook.test',
        test: true,
        data: { endpoint_id: endpoint.id, message: TEST_EVENT_MESSAGE },
      });
      const row = await this.deliveries.insertOne(tx, {
        orgId,
        endpointId: endpoint.id,
        eventId: event.envelope.id,
        eventOccurredAt: new Date(event.envelope.timestamp),
        eventType: 'webhook.test',
        trigger: 'test',
        now,
      });
      if (actor) await this.recordAction(tx, orgId, actor, 'webhook_endpoint.test_sent', row.id, { endpoint_id: endpoint.id });
      await this.deliveries.notify(tx);
      return toDeliveryDto(row);
    });
  }

  /**
   * A new delivery (trigger redelivery) of the same event to the same endpoint; the original is untouched. The
   * original is read first (what it names never changes), to take the endpoint's turn. `onEndpoint` (the console's
   * page): a delivery to any other endpoint answers 404. With an `actor`, the audit log records who asked.
   */
  async redeliver(scope: KeyScope, deliveryIdParam: string, actor?: AuditActor, onEndpoint?: string): Promise<WebhookDeliveryDto> {
    const { orgId } = scope;
    const deliveryId = requireUuid(deliveryIdParam, 'delivery_id');
    const original = await this.deliveries.findForOrg(orgId, deliveryId, this.keptSince());
    if (!original || (onEndpoint !== undefined && original.endpointId !== onEndpoint)) throw new NotFoundError('The webhook delivery');
    const sent = await this.turns.run(turnOf.endpoint(original.endpointId), () => this.redeliverNow(scope, original, actor));
    return this.queued(sent);
  }

  private redeliverNow(scope: KeyScope, original: DeliveryRow, actor?: AuditActor): Promise<WebhookDeliveryDto> {
    const { orgId, livemode } = scope;
    return this.db.transaction(async (tx) => {
      // A delivery is of its endpoint's mode: another mode's answers like an unknown one.
      const endpoint = await this.endpoints.lockForOrg(tx, orgId, livemode, original.endpointId);
      if (!endpoint) throw new NotFoundError('The webhook delivery');
      const now = this.clock.now();
      await this.checkSendable(tx, endpoint, now);
      const event = await this.events.findKept({ orgId, livemode: endpoint.livemode }, original.eventId);
      if (!event) throw new NotFoundError(`The delivery's event (kept ${EVENT_RETENTION_TEXT})`);
      const row = await this.deliveries.insertOne(tx, {
        orgId,
        endpointId: endpoint.id,
        eventId: original.eventId,
        eventOccurredAt: new Date(event.timestamp),
        eventType: original.eventType,
        trigger: 'redelivery',
        now,
      });
      if (actor) {
        await this.recordAction(tx, orgId, actor, 'webhook_delivery.redelivered', row.id, {
          endpoint_id: endpoint.id,
          original_delivery_id: original.id,
          event_id: original.eventId,
        });
      }
      await this.deliveries.notify(tx);
      return toDeliveryDto(row);
    });
  }

  private recordAction(tx: Tx, orgId: string, actor: AuditActor, action: string, deliveryId: string, details: Record<string, unknown>) {
    return this.audit.record({ orgId, actor, action, resourceType: 'webhook_delivery', resourceIds: [deliveryId], details }, tx);
  }

  /** A request made outbound traffic: say so once it is committed (the line carries the request id). */
  private queued(d: WebhookDeliveryDto): WebhookDeliveryDto {
    this.logger.log({ delivery_id: d.id, endpoint_id: d.endpoint_id, event_id: d.event_id, trigger: d.trigger }, 'webhook delivery queued');
    return d;
  }

  /**
   * 409 when the endpoint is off; 429 past MANUAL_SENDS_PER_MINUTE tests/resends in the last
   * minute, counted from the deliveries table under the endpoint's row lock,
   * so the limit holds across any number of API processes. Retry-After is
   * when the oldest of those 5 leaves the window.
   */
  private async checkSendable(tx: Tx, endpoint: WebhookEndpointEntity, now: Date): Promise<void> {
    if (endpoint.status !== 'enabled') {
      throw new EndpointDisabledError(
        `The webhook endpoint is turned off (${endpoint.disabledReason}); turn it back on in the dashboard first.`,
        {
          disabled_reason: endpoint.disabledReason,
        },
      );
    }
    const recent = await this.deliveries.recentManual(
      tx,
      endpoint.id,
      new Date(now.getTime() - MANUAL_SENDS_WINDOW_MS),
      MANUAL_SENDS_PER_MINUTE,
    );
    if (recent.length >= MANUAL_SENDS_PER_MINUTE) {
      const freeAt = recent[MANUAL_SENDS_PER_MINUTE - 1].getTime() + MANUAL_SENDS_WINDOW_MS;
      const seconds = Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000));
      throw new RateLimitedError(
        seconds,
        `At most ${MANUAL_SENDS_PER_MINUTE} test events and resends per endpoint per minute; retry in ${seconds} s.`,
      );
    }
  }

  private keptSince(): Date {
    return new Date(this.clock.now().getTime() - EVENT_RETENTION_MS);
  }
}
