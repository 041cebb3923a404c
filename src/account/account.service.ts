import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { EntityManager, Repository } from 'typeorm';
import { Clock } from '../common/clock.js';
import { AppConfig } from '../config/app-config.js';
import { PoolSql } from '../database/pool-sql.js';
import type { ApiPrincipal } from '../common/http/principal.js';
import { isIanaTimezone } from '../common/validation/is-iana-timezone.js';
import { ReceptionistService } from '../receptionist/index.js';
import { AccountDto } from './dto/account.dto.js';
import { OrgEntity } from './entities/org.entity.js';
import { nextStep, nextStepCode } from './next-step.js';
import { isUuid } from '../common/ids.js';

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** A dashboard-side input problem (CLI): the message is shown as is. */
export class AccountInputError extends Error {}

export interface CreateOrgInput {
  name: string;
  slug?: string;
  timezone?: string;
  number?: string;
  ownerEmail?: string;
}

export interface UpdateOrgInput {
  name?: string;
  slug?: string;
  timezone?: string;
  number?: string | null;
  status?: string;
  plan?: string | null;
  billingStatus?: string | null;
  trialEndsAt?: Date | null;
  paymentMethodOnFile?: boolean;
  ownerEmail?: string | null;
}

export function slugify(name: string): string {
  return (
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 64) || 'firm'
  );
}

export function toE164(number: string): string {
  const parsed = parsePhoneNumberFromString(number, number.trim().startsWith('+') ? undefined : 'US');
  if (!parsed || !parsed.isValid()) throw new AccountInputError(`"${number}" is not a valid phone number`);
  return parsed.number;
}

@Injectable()
export class AccountService {
  constructor(
    @InjectRepository(OrgEntity) private readonly orgs: Repository<OrgEntity>,
    private readonly sql: PoolSql,
    private readonly receptionist: ReceptionistService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  async createOrg(input: CreateOrgInput): Promise<OrgEntity> {
    const name = input.name?.trim();
    if (!name) throw new AccountInputError('--name is required');
    const slug = input.slug ?? slugify(name);
    if (!SLUG.test(slug)) throw new AccountInputError(`slug "${slug}" must be lowercase letters, digits and dashes`);
    const timezone = input.timezone ?? 'America/Chicago';
    if (!isIanaTimezone(timezone)) throw new AccountInputError(`timezone "${timezone}" is not an IANA timezone name`);
    if (await this.slugTaken(slug)) throw new AccountInputError(`slug "${slug}" is already taken`);
    return this.orgs.save(
      this.orgs.create({
        slug,
        displayName: name,
        status: 'onboarding',
        timezone,
        vertical: 'law',
        number: input.number ? toE164(input.number) : null,
        ownerEmail: input.ownerEmail ?? null,
        paymentMethodOnFile: false,
      }),
    );
  }

  async updateOrg(orgId: string, input: UpdateOrgInput): Promise<OrgEntity> {
    const org = await this.getOrg(orgId);
    if (input.slug !== undefined) {
      if (!SLUG.test(input.slug)) throw new AccountInputError(`slug "${input.slug}" must be lowercase letters, digits and dashes`);
      if (input.slug !== org.slug && (await this.slugTaken(input.slug)))
        throw new AccountInputError(`slug "${input.slug}" is already taken`);
      org.slug = input.slug;
    }
    if (input.timezone !== undefined) {
      if (!isIanaTimezone(input.timezone)) throw new AccountInputError(`timezone "${input.timezone}" is not an IANA timezone name`);
      org.timezone = input.timezone;
    }
    if (input.name !== undefined) org.displayName = input.name;
    if (input.number !== undefined) org.number = input.number === null ? null : toE164(input.number);
    if (input.status !== undefined) org.status = input.status;
    if (input.plan !== undefined) org.plan = input.plan;
    if (input.billingStatus !== undefined) org.billingStatus = input.billingStatus;
    if (input.trialEndsAt !== undefined) org.trialEndsAt = input.trialEndsAt;
    if (input.paymentMethodOnFile !== undefined) org.paymentMethodOnFile = input.paymentMethodOnFile;
    if (input.ownerEmail !== undefined) org.ownerEmail = input.ownerEmail;
    org.updatedAt = this.clock.now();
    return this.orgs.save(org);
  }

  /** Accepts the firm's id or slug (CLI). */
  async resolveOrg(idOrSlug: string): Promise<OrgEntity> {
    const org = isUuid(idOrSlug) ? await this.orgs.findOneBy({ id: idOrSlug }) : await this.orgs.findOneBy({ slug: idOrSlug });
    if (!org) throw new AccountInputError(`no firm with id or slug "${idOrSlug}"`);
    return org;
  }

  async getOrg(orgId: string): Promise<OrgEntity> {
    const org = await this.orgs.findOneBy({ id: orgId });
    if (!org) throw new AccountInputError(`no firm with id "${orgId}"`);
    return org;
  }

  /** Checked at every embedded start (first-start demo data): one indexed probe, not a listing. */
  async hasAnyOrg(): Promise<boolean> {
    return this.orgs.exists();
  }

  async slugTaken(slug: string): Promise<boolean> {
    return this.orgs.existsBy({ slug });
  }

  async listOrgs(): Promise<OrgEntity[]> {
    return this.orgs.find({ order: { createdAt: 'ASC' } });
  }

  /** On every list and detail read: plain SQL (a TypeORM findOne costs several times the CPU). */
  async timezoneOf(orgId: string): Promise<string> {
    const rows = await this.sql.prepared<{ timezone: string }>('org_timezone', 'SELECT timezone FROM orgs WHERE id = $1', [orgId]);
    return rows[0]?.timezone ?? 'UTC';
  }

  /** Row lock on the firm: serialises per-firm limits (active keys, endpoints) across processes. */
  async lockOrg(manager: EntityManager, orgId: string): Promise<void> {
    await manager.query('SELECT 1 FROM orgs WHERE id = $1 FOR UPDATE', [orgId]);
  }

  /** Ingestion calls this once per call; only the first one writes. */
  async markCallReceived(manager: EntityManager, orgId: string, at: Date): Promise<void> {
    await manager.query('UPDATE orgs SET first_call_at = $2 WHERE id = $1 AND first_call_at IS NULL', [orgId, at]);
  }

  async describe(principal: ApiPrincipal): Promise<AccountDto> {
    const org = await this.getOrg(principal.orgId);
    const state = await this.receptionist.setupState(org.id);
    const now = this.clock.now();
    const setup = {
      receptionist_configured: state.configured,
      config_valid: state.configValid,
      published: state.published,
      team_added: state.teamAdded,
      number_provisioned: org.number !== null,
      org_live: org.status === 'live',
      first_call_received: org.firstCallAt !== null,
      payment_method_on_file: org.paymentMethodOnFile,
    };
    const trialEnded = org.trialEndsAt !== null && org.trialEndsAt.getTime() <= now.getTime();
    return {
      has_org: true,
      org: {
        id: org.id,
        slug: org.slug,
        display_name: org.displayName,
        status: org.status,
        timezone: org.timezone,
        vertical: org.vertical,
      },
      plan: org.plan,
      billing_status: org.billingStatus,
      trial_ends_at: org.trialEndsAt?.toISOString() ?? null,
      trial_days_left: org.trialEndsAt === null ? null : Math.max(0, Math.ceil((org.trialEndsAt.getTime() - now.getTime()) / 86_400_000)),
      number: org.number,
      setup,
      next_step: nextStep(nextStepCode({ setup, billingStatus: org.billingStatus, trialEnded }), this.config.dashboardUrl),
      api_key: {
        id: principal.keyId,
        name: principal.keyName,
        prefix: principal.prefix,
        last4: principal.last4,
        scopes: principal.scopes,
        expires_at: principal.expiresAt?.toISOString() ?? null,
        created_at: principal.createdAt.toISOString(),
      },
    };
  }
}
