import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { SignatureScheme } from '../signing.js';
import type { DisabledReason, EndpointStatus } from '../webhook-model.js';

/**
 * A webhook endpoint (`webhook_endpoints`). `secretEnc` and `previousSecretEnc` are sealed (AES-256-GCM under
 * WEBHOOK_SECRET_KEY, bound to the endpoint id): a `whsec_` secret (signature `v1`) or an ed25519 private key
 * (`whsk_`, signature `v1a`, whose public key is `publicKey`); the plain secret is never stored. The list index sorts
 * `createdAt` and `id` descending (named here, defined by the migrations alone: TypeORM has no column order, docs/decisions.md).
 */
@Entity('webhook_endpoints')
@Check('webhook_endpoints_status_check', `status IN ('enabled', 'disabled')`)
@Check('webhook_endpoints_disabled_reason_check', `disabled_reason IN ('owner', 'failing', 'gone')`)
@Check('webhook_endpoints_check', `(status = 'enabled') = (disabled_reason IS NULL)`)
@Check('webhook_endpoints_previous_secret_check', '(previous_secret_enc IS NULL) = (previous_secret_expires_at IS NULL)')
@Check('webhook_endpoints_signature_check', `signature IN ('v1', 'v1a')`)
@Check('webhook_endpoints_public_key_check', `(signature = 'v1a') = (public_key IS NOT NULL)`)
@Index('webhook_endpoints_org_idx', { synchronize: false })
export class WebhookEndpointEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'webhook_endpoints_pkey' })
  id: string;

  @Column('uuid')
  @ForeignKey('orgs', { name: 'webhook_endpoints_org_id_fkey', onDelete: 'CASCADE' })
  orgId: string;

  @Column('text')
  url: string;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text', { array: true })
  eventTypes: string[];

  @Column('text')
  status: EndpointStatus;

  @Column('text', { nullable: true })
  disabledReason: DisabledReason | null;

  @Column('text')
  secretEnc: string;

  @Column('text')
  secretLast4: string;

  @Column('timestamptz', { nullable: true })
  lastSuccessAt: Date | null;

  @Column('timestamptz', { nullable: true })
  lastFailureAt: Date | null;

  @Column('timestamptz', { nullable: true })
  failingSince: Date | null;

  /** Created or last turned back on: the 3-day "no success" rule counts from here at the earliest. */
  @Column('timestamptz')
  healthSince: Date;

  @Column('timestamptz')
  createdAt: Date;

  @Column('timestamptz')
  updatedAt: Date;

  /** The secret a rotation replaced, which signs alongside the new one until `previousSecretExpiresAt`. */
  @Column('text', { nullable: true })
  previousSecretEnc: string | null;

  @Column('timestamptz', { nullable: true })
  previousSecretExpiresAt: Date | null;

  /** false: a test-mode endpoint, which receives test events only (live ones receive live events only). */
  @Column('boolean', { default: true })
  livemode: boolean;

  /** How its deliveries are signed: `v1` (HMAC-SHA256, a `whsec_` secret) or `v1a` (ed25519). */
  @Column('text', { default: 'v1' })
  signature: SignatureScheme;

  /** For `v1a`: the public key a receiver verifies with (`whpk_...`, not a secret); null for `v1`. */
  @Column('text', { nullable: true })
  publicKey: string | null;
}
