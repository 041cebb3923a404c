import { Injectable } from '@nestjs/common';
import { instanceToPlain } from 'class-transformer';
import { Clock } from '../common/clock.js';
import { NotPublishedError } from './receptionist.errors.js';
import { DocumentInvalidError, validateDocument } from '../common/validation/validate-document.js';
import {
  LanguageOverridesDto,
  PublishedReceptionistDto,
  ReceptionistSettingsDto,
  RoutingRuleDto,
} from './dto/receptionist-settings.dto.js';
import { ReceptionistSettingsRepository } from './receptionist-settings.repository.js';

export interface ReceptionistSetupState {
  configured: boolean;
  configValid: boolean;
  published: boolean;
  teamAdded: boolean;
  version: number;
}

@Injectable()
export class ReceptionistService {
  constructor(
    private readonly repo: ReceptionistSettingsRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Validates a settings document: shape, every routing rule, then that every
   * routed team key exists. Returns the document as stored: each rule as its
   * DTO reads it, so members the spec requires and the document left out
   * (language_overrides.en or .es) are stored as null.
   */
  validate(document: unknown): Record<string, unknown> {
    const settings = validateDocument(ReceptionistSettingsDto, document);
    const problems: { path: string; message: string }[] = [];
    const teamKeys = new Set(settings.team.map((m) => m.key));
    if (teamKeys.size !== settings.team.length) problems.push({ path: 'team', message: 'team keys must be unique' });
    const routing: [string, RoutingRuleDto][] = [];
    for (const [category, rule] of Object.entries(settings.routing)) {
      try {
        const r = validateDocument(RoutingRuleDto, rule, `routing.${category}`);
        routing.push([category, r]);
        const chains = [r.in_hours_chain, r.language_overrides.en?.in_hours_chain ?? [], r.language_overrides.es?.in_hours_chain ?? []];
        for (const key of chains.flat()) {
          if (!teamKeys.has(key))
            problems.push({ path: `routing.${category}`, message: `names team key "${key}", which is not on the team` });
        }
      } catch (e) {
        if (e instanceof DocumentInvalidError) problems.push(...e.problems);
        else throw e;
      }
    }
    if (problems.length) throw new DocumentInvalidError(problems);
    // fromEntries defines each key as its own member (a category named __proto__ included).
    settings.routing = Object.fromEntries(routing);
    return instanceToPlain(settings);
  }

  async publish(orgId: string, document: unknown): Promise<{ version: number; published_at: string }> {
    const settings = this.validate(document);
    const now = this.clock.now();
    const row = await this.repo.findByOrg(orgId);
    const version = (row?.version ?? 0) + 1;
    await this.repo.save({ orgId, published: settings, version, publishedAt: now, draft: null, draftUpdatedAt: null });
    return { version, published_at: now.toISOString() };
  }

  async saveDraft(orgId: string, document: unknown): Promise<{ draft_pending: true; version: number }> {
    const settings = this.validate(document);
    const row = await this.repo.findByOrg(orgId);
    await this.repo.save({
      orgId,
      published: row?.published ?? null,
      version: row?.version ?? 0,
      publishedAt: row?.publishedAt ?? null,
      draft: settings,
      draftUpdatedAt: this.clock.now(),
    });
    return { draft_pending: true, version: row?.version ?? 0 };
  }

  /** GET /v1/receptionist: 409 not_published until the firm first publishes. */
  async getPublished(orgId: string): Promise<PublishedReceptionistDto> {
    const row = await this.repo.findByOrg(orgId);
    if (!row?.published) {
      throw new NotPublishedError();
    }
    const s = row.published as unknown as ReceptionistSettingsDto;
    return {
      agent_name: s.agent_name,
      profile: s.profile,
      hours: s.hours,
      team: s.team,
      routing: servedRouting(s.routing),
      alert_emails: s.alert_emails,
      capture_email: s.capture_email,
      facts: s.facts,
      house_rules: s.house_rules,
      version: row.version,
      published_at: row.publishedAt ? row.publishedAt.toISOString() : null,
      draft_pending: row.draft !== null,
    };
  }

  async setupState(orgId: string): Promise<ReceptionistSetupState> {
    const row = await this.repo.findByOrg(orgId);
    const published = row?.published as { team?: unknown[] } | null | undefined;
    let configValid = false;
    const current = row?.draft ?? row?.published;
    if (current) {
      try {
        this.validate(current);
        configValid = true;
      } catch {
        configValid = false;
      }
    }
    return {
      configured: !!current,
      configValid,
      published: !!published,
      teamAdded: Array.isArray(published?.team) && published.team.length > 0,
      version: row?.version ?? 0,
    };
  }
}

/**
 * Settings published before rules were stored as their DTO reads them may
 * lack language_overrides or its members: served as the spec requires them,
 * the missing ones null (null keeps the default chain, as absence did).
 */
function servedRouting(routing: Record<string, RoutingRuleDto>): Record<string, RoutingRuleDto> {
  return Object.fromEntries(
    Object.entries(routing).map(([category, rule]) => {
      const overrides = (rule.language_overrides ?? {}) as Partial<LanguageOverridesDto>;
      return [category, { ...rule, language_overrides: { en: overrides.en ?? null, es: overrides.es ?? null } }];
    }),
  );
}
