import { Injectable } from '@nestjs/common';
import { columns } from '../database/columns.js';
import { DummyValue, GenerateSql } from '../database/generate-sql.js';
import { Database } from '../database/sql.js';
import { DELIVERY, type DeliveryRow } from './webhook-deliveries.repository.js';
import type { DeliveryStatus } from './webhook-model.js';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity.js';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity.js';

const [d, e] = [columns(WebhookDeliveryEntity, 'd'), columns(WebhookEndpointEntity, 'e')];

/** What the console shows of an endpoint's past besides its pages of deliveries: its chart, and what was resent. */
@Injectable()
export class DeliveryHistoryRepository {
  constructor(private readonly db: Database) {}

  /** How many deliveries of the endpoint (of this firm and mode) were made each hour since `since`, by status. */
  @GenerateSql({ params: [DummyValue.UUID, true, DummyValue.UUID, DummyValue.DATE] })
  countByHour(
    orgId: string,
    livemode: boolean,
    endpointId: string,
    since: Date,
  ): Promise<{ hour: Date; status: DeliveryStatus; deliveries: number }[]> {
    return this.db.query<{ hour: Date; status: DeliveryStatus; deliveries: number }>(
      `SELECT date_trunc('hour', ${d.createdAt} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, ${d.status}, count(*)::int AS deliveries
         FROM webhook_deliveries d JOIN webhook_endpoints e ON ${e.id} = ${d.endpointId}
        WHERE ${d.endpointId} = $1 AND ${d.createdAt} >= $2 AND ${e.orgId} = $3 AND ${e.livemode} = $4
        GROUP BY 1, 2 ORDER BY 1, 2`,
      [endpointId, since, orgId, livemode],
    );
  }

  /** The redeliveries made of these events to this endpoint (the console links a failed delivery to them), oldest first. */
  @GenerateSql({ params: [DummyValue.UUID, DummyValue.UUID, [DummyValue.TEXT], DummyValue.DATE] })
  redeliveriesOf(orgId: string, endpointId: string, eventIds: string[], since: Date): Promise<DeliveryRow[]> {
    return this.db.query(
      DELIVERY,
      `SELECT ${DELIVERY} FROM webhook_deliveries d
        WHERE ${d.orgId} = $1 AND ${d.endpointId} = $2 AND ${d.eventId} = ANY($3) AND ${d.trigger} = 'redelivery' AND ${d.createdAt} >= $4
        ORDER BY ${d.createdAt}, ${d.id}`,
      [orgId, endpointId, eventIds, since],
    );
  }
}
