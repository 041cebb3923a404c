import { Injectable, Logger } from '@nestjs/common';
import { AuditService } from '../audit/index.js';
import { Clock } from '../common/clock.js';
import { InvalidInputError } from '../common/errors/invalid-input.js';
import { Database } from '../database/sql.js';
import type { WebhookEndpointDto } from './dto/webhook.dto.js';
import { lockEndpointFor, OWNER, type EndpointActor } from './endpoint-actor.js';
import { checkDescription, checkEventTypes } from './endpoint-input.js';
import type { WebhookEndpointEntity } from './entities/webhook-endpoint.entity.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';
import { toEndpointDto } from './webhook.mapper.js';

/** A change to an endpoint, as the CLI's `endpoint update` and the console's "Save" ask for it. */
export interface EndpointUpdate {
  /** The new label; empty (or null) clears it. Left out: unchanged. */
  description?: string | null;
  /** The new subscriptions (comma-separated or a list), at least one. Left out: unchanged. */
  eventTypes?: string | string[];
  /** Refused whenever given: an endpoint's URL cannot be changed (the spec); a new URL is a new endpoint. */
  url?: string;
}

type Changes = Partial<Pick<WebhookEndpointEntity, 'description' | 'eventTypes'>>;

const sameTypes = (a: string[], b: string[]) => a.length === b.length && a.every((t, i) => t === b[i]);

/**
 * The one rule for changing an endpoint (CLI and console alike): its description and event types, never its URL.
 * The change and its audit entry (with the actor) commit together; the next event is fanned out by the new types
 * (fan-out reads them in the event's transaction), and deliveries already made are left as they are.
 */
@Injectable()
export class WebhookEndpointUpdatesService {
  private readonly logger = new Logger('WebhookEndpoints');

  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly db: Database,
  ) {}

  async update(id: string, change: EndpointUpdate, by: EndpointActor = OWNER): Promise<WebhookEndpointDto> {
    const wanted = checkedChange(change);
    const updated = await this.db.transaction(async (tx) => {
      const e = await lockEndpointFor(this.endpoints, tx, id, by);
      const changes = differences(e, wanted);
      if (Object.keys(changes).length === 0) return e;
      const now = this.clock.now();
      await this.endpoints.update(tx, e.id, changes, now);
      await this.audit.record(
        {
          orgId: e.orgId,
          actor: by.actor,
          action: 'webhook_endpoint.updated',
          resourceType: 'webhook_endpoint',
          resourceIds: [e.id],
          details: auditDetails(e, changes),
        },
        tx,
      );
      return { ...e, ...changes, updatedAt: now };
    });
    this.logger.log({ endpoint_id: updated.id }, 'webhook endpoint updated');
    return toEndpointDto(updated);
  }
}

/** The change as asked, each part checked by the rule `endpoint create` uses for it. */
function checkedChange(change: EndpointUpdate): Changes {
  if (change.url !== undefined) {
    throw new InvalidInputError(
      'url',
      'cannot be changed: an endpoint keeps its URL for life. For a new URL, add a new endpoint (it gets its own signing secret) and delete this one.',
    );
  }
  if (change.description === undefined && change.eventTypes === undefined) {
    throw new InvalidInputError(null, 'nothing to change: give a new description, new event types, or both');
  }
  const wanted: Changes = {};
  if (change.description !== undefined) wanted.description = checkDescription(change.description);
  if (change.eventTypes !== undefined) wanted.eventTypes = checkEventTypes(change.eventTypes);
  return wanted;
}

/** What would really change (a repeated save writes and records nothing). */
function differences(e: WebhookEndpointEntity, wanted: Changes): Changes {
  const changes: Changes = {};
  if (wanted.description !== undefined && wanted.description !== e.description) changes.description = wanted.description;
  if (wanted.eventTypes !== undefined && !sameTypes(wanted.eventTypes, e.eventTypes)) changes.eventTypes = wanted.eventTypes;
  return changes;
}

/** Each changed member, from and to. */
function auditDetails(e: WebhookEndpointEntity, changes: Changes): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  if (changes.description !== undefined) details.description = { from: e.description, to: changes.description };
  if (changes.eventTypes !== undefined) details.event_types = { from: e.eventTypes, to: changes.eventTypes };
  return details;
}
