import { Injectable, Logger } from '@nestjs/common';
import { Database, type Tx } from '../database/sql.js';
import { randomUUID } from 'node:crypto';
import { AccountService } from '../account/index.js';
import { AuditService, type AuditActor } from '../audit/index.js';
import { Clock } from '../common/clock.js';
import { AppConfig } from '../config/app-config.js';
import type { WebhookEndpointDto } from './dto/webhook.dto.js';
import { SecretBox, newSigningSecret } from './secret-box.js';
import { checkDescription, checkEndpointUrl, checkEventTypes } from './endpoint-input.js';
import { endpointNotFound, lockEndpointFor, OWNER, type EndpointActor } from './endpoint-actor.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import type { WebhookEndpointEntity } from './entities/webhook-endpoint.entity.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';
import { toEndpointDto } from './webhook.mapper.js';
import { InvalidInputError } from '../common/errors/invalid-input.js';
import { isUuid } from '../common/ids.js';

export const MAX_ENDPOINTS_PER_FIRM = 5;
/** How long the replaced secret keeps signing after a rotation, unless the owner says otherwise. */
export const DEFAULT_ROTATION_OVERLAP_MS = 24 * 3600_000;
export const MAX_ROTATION_OVERLAP_MS = 7 * 24 * 3600_000;

export interface RotatedSecret {
  id: string;
  /** The new signing secret, shown only here. */
  secret: string;
  /** Until when the replaced secret signs too; null when the overlap is zero. */
  previous_secret_expires_at: string | null;
}

export interface CreateEndpointInput {
  orgId: string;
  url: string;
  /** Comma-separated or a list; each among call.completed, lead.created, lead.updated. */
  eventTypes: string | string[];
  description?: string | null;
  /** false: a test-mode endpoint (receives test events only). Live unless asked. */
  livemode?: boolean;
  /** Who adds it (the audit log's actor): the owner through the CLI unless said. */
  actor?: AuditActor;
}

/** Endpoint management: dashboard actions (CLI) and the API's read. */
@Injectable()
export class WebhookEndpointsService {
  private readonly logger = new Logger(WebhookEndpointsService.name);

  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly account: AccountService,
    private readonly audit: AuditService,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly db: Database,
  ) {}

  /** The signing secret is returned only here. */
  async create(input: CreateEndpointInput): Promise<{ endpoint: WebhookEndpointDto; secret: string }> {
    const url = checkEndpointUrl(input.url, this.config.webhookAllowPrivateTargets);
    const eventTypes = checkEventTypes(input.eventTypes);
    const description = checkDescription(input.description);
    const id = randomUUID();
    const secret = newSigningSecret();
    const now = this.clock.now();
    const livemode = input.livemode ?? true;
    const row = await this.db.transaction(async (tx) => {
      await this.account.lockOrg(tx, input.orgId);
      if ((await this.endpoints.countForOrg(tx, input.orgId, livemode)) >= MAX_ENDPOINTS_PER_FIRM) {
        const which = livemode ? '' : ' test';
        throw new InvalidInputError(null, `this firm already has ${MAX_ENDPOINTS_PER_FIRM}${which} webhook endpoints; delete one first`);
      }
      const created = await this.endpoints.insert(tx, {
        id,
        orgId: input.orgId,
        url,
        description,
        eventTypes,
        status: 'enabled',
        disabledReason: null,
        secretEnc: this.secrets.seal(secret, id),
        secretLast4: secret.slice(-4),
        createdAt: now,
        livemode,
      });
      await this.audit.record(
        {
          orgId: input.orgId,
          actor: input.actor ?? OWNER.actor,
          action: 'webhook_endpoint.created',
          resourceType: 'webhook_endpoint',
          resourceIds: [id],
          details: { event_types: eventTypes, mode: livemode ? 'live' : 'test' },
        },
        tx,
      );
      return created;
    });
    this.logger.log({ endpoint_id: id, org_id: input.orgId }, 'webhook endpoint created');
    return { endpoint: toEndpointDto(row), secret };
  }

  /** Owner turns it off: nothing more is sent; pending deliveries are closed, not kept for later. */
  async disable(id: string, by = OWNER): Promise<WebhookEndpointDto> {
    return this.change(id, by, 'webhook_endpoint.disabled', async (tx, e, now) => {
      if (e.status === 'disabled') return;
      await this.endpoints.disable(tx, e.id, 'owner', now);
      await this.deliveries.closePending(tx, e.id, now);
    });
  }

  async enable(id: string, by = OWNER): Promise<WebhookEndpointDto> {
    return this.change(id, by, 'webhook_endpoint.enabled', async (tx, e, now) => {
      if (e.status === 'enabled') return;
      await this.endpoints.enable(tx, e.id, now);
    });
  }

  /** Deletes the endpoint and its deliveries. */
  async delete(id: string, by = OWNER): Promise<{ id: string; deleted: true }> {
    await this.db.transaction(async (tx) => {
      const e = await this.lockFor(tx, id, by);
      await this.endpoints.delete(tx, e.id);
      await this.audit.record(
        {
          orgId: e.orgId,
          actor: by.actor,
          action: 'webhook_endpoint.deleted',
          resourceType: 'webhook_endpoint',
          resourceIds: [e.id],
        },
        tx,
      );
    });
    return { id, deleted: true };
  }

  /**
   * A new signing secret. For `overlapMs` every delivery is signed with both, so
   * a receiver switches without losing one; a secret replaced earlier stops at once.
   */
  async rotateSecret(id: string, overlapMs = DEFAULT_ROTATION_OVERLAP_MS, by = OWNER): Promise<RotatedSecret> {
    if (!Number.isInteger(overlapMs) || overlapMs < 0 || overlapMs > MAX_ROTATION_OVERLAP_MS)
      throw new InvalidInputError('overlap', 'must be between 0 and 7 days');
    const secret = newSigningSecret();
    const now = this.clock.now();
    const expiresAt = overlapMs > 0 ? new Date(now.getTime() + overlapMs) : null;
    await this.db.transaction(async (tx) => {
      const e = await this.lockFor(tx, id, by);
      await this.endpoints.rotateSecret(tx, e.id, {
        secretEnc: this.secrets.seal(secret, e.id),
        secretLast4: secret.slice(-4),
        previousSecretEnc: expiresAt ? e.secretEnc : null,
        previousExpiresAt: expiresAt,
        now,
      });
      await this.audit.record(
        {
          orgId: e.orgId,
          actor: by.actor,
          action: 'webhook_endpoint.secret_rotated',
          resourceType: 'webhook_endpoint',
          resourceIds: [e.id],
          details: { previous_secret_expires_at: expiresAt?.toISOString() ?? null },
        },
        tx,
      );
    });
    this.logger.log({ endpoint_id: id }, 'webhook endpoint signing secret rotated');
    return { id, secret, previous_secret_expires_at: expiresAt?.toISOString() ?? null };
  }

  /** One endpoint of the firm in one mode (404 for any other id, like an unknown one). */
  async get(scope: { orgId: string; livemode: boolean }, id: string): Promise<WebhookEndpointDto> {
    const e = isUuid(id) ? await this.endpoints.findById(id.toLowerCase()) : null;
    if (!e || e.orgId !== scope.orgId || e.livemode !== scope.livemode) throw endpointNotFound(id);
    return toEndpointDto(e);
  }

  /** The firm's endpoints of one mode (a key's), or of both (null: the owner's list). */
  async list(orgId: string, livemode: boolean | null): Promise<WebhookEndpointDto[]> {
    return (await this.endpoints.listForOrg(orgId, livemode)).map(toEndpointDto);
  }

  private async change(
    id: string,
    by: EndpointActor,
    action: string,
    apply: (tx: Tx, e: WebhookEndpointEntity, now: Date) => Promise<void>,
  ): Promise<WebhookEndpointDto> {
    const now = this.clock.now();
    const e = await this.db.transaction(async (tx) => {
      const locked = await this.lockFor(tx, id, by);
      await apply(tx, locked, now);
      await this.audit.record(
        { orgId: locked.orgId, actor: by.actor, action, resourceType: 'webhook_endpoint', resourceIds: [locked.id] },
        tx,
      );
      return locked;
    });
    return toEndpointDto((await this.endpoints.findById(e.id))!);
  }

  private lockFor(tx: Tx, id: string, by: EndpointActor): Promise<WebhookEndpointEntity> {
    return lockEndpointFor(this.endpoints, tx, id, by);
  }
}
