import { WebhookEndpointsService } from '../../src/webhooks';
import { mintLink, openConsole, type ConsoleBrowser } from '../support/console';
import { createFirm, type TestFirm } from '../support/factories';
import { collectLogLines } from '../support/run-log';
import { startTestApp, type TestApp } from '../support/test-app';

export const HOUR_MS = 3600_000;

/**
 * What the cases of 'the console over HTTP' share, split over its topic files (console-entering.ts, console-seeing.ts,
 * console-acting.ts): one app whose log lines the closing case searches for every token the others handled, its two
 * firms, and the helpers that sign in and read rows. console.cases.ts makes it inside that describe, starts it in its
 * beforeAll and closes it in its afterAll; a topic's own beforeAll (which runs after) takes the app and firms from it.
 */
export class ConsoleOverHttp {
  private readonly log = collectLogLines();
  readonly lines = this.log.lines;
  readonly tokens: string[] = [];
  t!: TestApp;
  firm!: TestFirm;
  other!: TestFirm;
  endpoints!: WebhookEndpointsService;

  async start(): Promise<void> {
    this.t = await startTestApp({ env: { ROLE: 'api' }, logStream: this.log.stream });
    this.firm = await createFirm(this.t.app);
    this.other = await createFirm(this.t.app);
    this.endpoints = this.t.app.get(WebhookEndpointsService);
  }

  // Arrow functions: the topic files take them out of the object.
  readonly endpointFor = async (f: TestFirm, opts: { livemode?: boolean; description?: string; eventTypes?: string[] } = {}) =>
    (
      await this.endpoints.create({
        orgId: f.orgId,
        url: `https://hooks.example.com/${Math.random().toString(36).slice(2)}`,
        eventTypes: ['call.completed'],
        ...opts,
      })
    ).endpoint.id;
  readonly signIn = async (f: TestFirm, livemode = true, readOnly = false): Promise<ConsoleBrowser> => {
    const { token } = await mintLink(this.t.app, f.slug, livemode, readOnly);
    this.tokens.push(token);
    const c = await openConsole(this.t.baseUrl, token);
    this.tokens.push(c.secret);
    return c;
  };
  readonly deliveriesOf = async (endpointId: string): Promise<number> =>
    (await this.t.sql('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [endpointId]))[0].n;
  readonly auditOf = (orgId: string, action: string) =>
    this.t.sql('SELECT actor_type, actor_id, resource_ids, details FROM audit_log WHERE org_id = $1 AND action = $2 ORDER BY id', [
      orgId,
      action,
    ]);
}
