import { Injectable, Logger } from '@nestjs/common';
import { Database, type Tx } from '../database/sql.js';
import { randomUUID } from 'node:crypto';
import { AccountService } from '../account/index.js';
import { AuditService, type AuditActor } from '../audit/index.js';
import { Clock } from '../common/clock.js';
import { AppConfig } from '../config/app-config.js';
import type { WebhookEndpointDto } from './dto/webhook.dto.js';
import { SecretBox, newSigningMaterial } from './secret-box.js';
import type { SignatureScheme } from './signing.js';
import type { CreatedEndpoint, RotatedSecret } from './signing-results.js';

export type { CreatedEndpoint, RotatedSecret } from './signing-results.js';
import { checkDescription, checkEndpointUrl, checkEventTypes } from './endpoint-input.js';
import { endpointNotFound, lockEndpointFor, OWNER, type EndpointActor } from './endpoint-actor.js';
import { EndpointEvents } from './endpoint-events.js';
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
  /** How its deliveries are signed: `v1` (HMAC, the default) or `v1a` (ed25519, a public key to verify with). */
  signature?: SignatureScheme;
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
    private readonly endpointEvents: EndpointEvents,
  ) {}

  /** The signing secret is returned only here (for v1a the public key, which the API shows too). */
  create(input: CreateEndpointInput & { signature?: 'v1' }): Promise<{ endpoint: WebhookEndpointDto; secret: string }>;
  create(input: CreateEndpointInput & { signature: 'v1a' }): Promise<{ endpoint: WebhookEndpointDto; publicKey: string }>;
  create(input: CreateEndpointInput): Promise<CreatedEndpoint>;
  async create(input: CreateEndpointInput): Promise<CreatedEndpoint> {
    const url = checkEndpointUrl(input.url, this.config.webhookAllowPrivateTargets);
    const eventTypes = checkEventTypes(input.eventTypes);
    const description = checkDescription(input.description);
    const id = randomUUID();
    const signing = newSigningMaterial(input.signature ?? 'v1');
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
        secretEnc: this.secrets.seal(signing.secret, id),
        secretLast4: signing.last4,
        createdAt: now,
        livemode,
        signature: signing.signature,
        publicKey: signing.publicKey,
      });
      await this.audit.record(
        {
          orgId: input.orgId,
          actor: input.actor ?? OWNER.actor,
          action: 'webhook_endpoint.created',
          resourceType: 'webhook_endpoint',
          resourceIds: [id],
          details: { event_types: eventTypes, mode: livemode ? 'live' : 'test', signature: signing.signature },
        },
        tx,
      );
      return created;
    });
    this.logger.log({ endpoint_id: id, org_id: input.orgId, signature: signing.signature }, 'webhook endpoint created');
    const shown = signing.publicKey === null ? { secret: signing.secret } : { publicKey: signing.publicKey };
    return { endpoint: toEndpointDto(row), ...shown };
  }

  /** Owner turns it off: nothing more is sent; pending deliveries are closed, not kept for later. Its event, once off. */
  async disable(id: string, by = OWNER): Promise<WebhookEndpointDto> {
    return this.change(id, by, 'webhook_endpoint.disabled', async (tx, e, now) => {
      if (e.status === 'disabled') return;
      await this.endpoints.disable(tx, e.id, 'owner', now);
      await this.deliveries.closePending(tx, e.id, now);
      await this.endpointEvents.disabled(tx, e, 'owner');
    });
  }

  async enable(id: string, by = OWNER): Promise<WebhookEndpointDto> {
    return this.change(id, by, 'webhook_endpoint.enabled', async (tx, e, now) => {
      if (e.status === 'enabled') return;
      await this.endpoints.enable(tx, e.id, now);
      await this.endpointEvents.enabled(tx, e);
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
   * A new signing secret (v1) or key pair (v1a), of the endpoint's scheme unless `signature` says another. For
   * `overlapMs` every delivery is signed with both, so a receiver switches without losing one (from v1 to v1a: it
   * carries a `v1` and a `v1a` signature); a secret replaced earlier stops at once.
   */
  async rotateSecret(id: string, overlapMs = DEFAULT_ROTATION_OVERLAP_MS, by = OWNER, signature?: SignatureScheme): Promise<RotatedSecret> {
    if (!Number.isInteger(overlapMs) || overlapMs < 0 || overlapMs > MAX_ROTATION_OVERLAP_MS)
      throw new InvalidInputError('overlap', 'must be between 0 and 7 days');
    const now = this.clock.now();
    const expiresAt = overlapMs > 0 ? new Date(now.getTime() + overlapMs) : null;
    const signing = await this.db.transaction(async (tx) => {
      const e = await this.lockFor(tx, id, by);
      const material = newSigningMaterial(signature ?? e.signature);
      await this.endpoints.rotateSecret(tx, e.id, {
        secretEnc: this.secrets.seal(material.secret, e.id),
        secretLast4: material.last4,
        signature: material.signature,
        publicKey: material.publicKey,
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
          details: { previous_secret_expires_at: expiresAt?.toISOString() ?? null, signature: material.signature },
        },
        tx,
      );
      return material;
    });
    this.logger.log({ endpoint_id: id, signature: signing.signature }, 'webhook endpoint signing secret rotated');
    const until = expiresAt?.toISOString() ?? null;
    if (signing.publicKey !== null) return { id, public_key: signing.publicKey, previous_secret_expires_at: until };
    return { id, secret: signing.secret, previous_secret_expires_at: until };
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
