import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { InvalidInputError } from '../common/errors/invalid-input.js';
import { NotFoundError } from '../common/errors/problems.js';
import type { ApiPrincipal } from '../common/http/principal.js';
import { isUuid } from '../common/ids.js';
import { AppConfig } from '../config/app-config.js';
import type { Tx } from '../database/sql.js';
import { ReceptionistService } from '../receptionist/index.js';
import { toAccountDto } from './account.mapper.js';
import type { AccountDto } from './dto/account.dto.js';
import type { OrgEntity } from './entities/org.entity.js';
import type { Org } from './org.js';
import { checkNumber, checkSlug, checkTimezone, slugify } from './org-rules.js';
import { OrgsRepository } from './orgs.repository.js';

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

/** A firm as it leaves the context: a plain copy of its row, never the entity. */
const toOrg = (row: OrgEntity): Org => ({ ...row });

/** Firms: created and changed from the dashboard (CLI), read by every context. */
@Injectable()
export class AccountService {
  constructor(
    private readonly orgs: OrgsRepository,
    private readonly receptionist: ReceptionistService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  async createOrg(input: CreateOrgInput): Promise<Org> {
    const name = input.name?.trim();
    if (!name) throw new InvalidInputError('name', 'is required');
    const slug = checkSlug(input.slug ?? slugify(name));
    const timezone = checkTimezone(input.timezone ?? 'America/Chicago');
    if (await this.orgs.slugTaken(slug)) throw new InvalidInputError('slug', `"${slug}" is already taken`);
    const org = await this.orgs.insert({
      slug,
      displayName: name,
      status: 'onboarding',
      timezone,
      vertical: 'law',
      number: input.number ? checkNumber(input.number) : null,
      ownerEmail: input.ownerEmail ?? null,
      paymentMethodOnFile: false,
    });
    return toOrg(org);
  }

  async updateOrg(orgId: string, input: UpdateOrgInput): Promise<Org> {
    const org = await this.orgs.findById(orgId);
    if (!org) throw new NotFoundError('The firm', `no firm with id "${orgId}"`);
    if (input.slug !== undefined && input.slug !== org.slug) {
      if (await this.orgs.slugTaken(checkSlug(input.slug))) throw new InvalidInputError('slug', `"${input.slug}" is already taken`);
      org.slug = input.slug;
    }
    if (input.timezone !== undefined) org.timezone = checkTimezone(input.timezone);
    if (input.number !== undefined) org.number = input.number === null ? null : checkNumber(input.number);
    if (input.name !== undefined) org.displayName = input.name;
    if (input.status !== undefined) org.status = input.status;
    if (input.plan !== undefined) org.plan = input.plan;
    if (input.billingStatus !== undefined) org.billingStatus = input.billingStatus;
    if (input.trialEndsAt !== undefined) org.trialEndsAt = input.trialEndsAt;
    if (input.paymentMethodOnFile !== undefined) org.paymentMethodOnFile = input.paymentMethodOnFile;
    if (input.ownerEmail !== undefined) org.ownerEmail = input.ownerEmail;
    org.updatedAt = this.clock.now();
    return toOrg(await this.orgs.save(org));
  }

  /** The firm named by its id or slug (CLI). */
  async resolveOrg(idOrSlug: string): Promise<Org> {
    const org = isUuid(idOrSlug) ? await this.orgs.findById(idOrSlug) : await this.orgs.findBySlug(idOrSlug);
    if (!org) throw new NotFoundError('The firm', `no firm with id or slug "${idOrSlug}"`);
    return toOrg(org);
  }

  /** The firm, or NotFoundError; a malformed id is simply not found. */
  async getOrg(orgId: string): Promise<Org> {
    const org = isUuid(orgId) ? await this.orgs.findById(orgId) : null;
    if (!org) throw new NotFoundError('The firm', `no firm with id "${orgId}"`);
    return toOrg(org);
  }

  hasAnyOrg(): Promise<boolean> {
    return this.orgs.anyExists();
  }

  slugTaken(slug: string): Promise<boolean> {
    return this.orgs.slugTaken(slug);
  }

  async listOrgs(): Promise<Org[]> {
    return (await this.orgs.listByCreation()).map(toOrg);
  }

  async timezoneOf(orgId: string): Promise<string> {
    return (await this.orgs.timezoneOf(orgId)) ?? 'UTC';
  }

  /** Serialises per-firm limits (active keys, endpoints) across processes, inside the caller's transaction. */
  lockOrg(tx: Tx, orgId: string): Promise<void> {
    return this.orgs.lockForUpdate(tx, orgId);
  }

  /** Ingestion calls this in each call's transaction; only the first one writes. */
  markCallReceived(tx: Tx, orgId: string, at: Date): Promise<void> {
    return this.orgs.markCallReceived(tx, orgId, at);
  }

  async describe(principal: ApiPrincipal): Promise<AccountDto> {
    const org = await this.getOrg(principal.orgId);
    const state = await this.receptionist.setupState(org.id);
    return toAccountDto(org, state, principal, this.clock.now(), this.config.dashboardUrl);
  }
}
