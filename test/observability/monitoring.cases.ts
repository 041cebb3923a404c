import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { Database } from '../../src/database/sql';
import { AuditService } from '../../src/audit';
import { RetentionRunner } from '../../src/common/retention/retention-runner';
import { EventsService } from '../../src/events';
import { RecordingSweeper } from '../../src/recordings';
import { WebhookEndpointsService } from '../../src/webhooks';
import { createFirm } from '../support/factories';
import { exposedNames, metricNames } from '../support/promql-names';
import { behaviours, Receiver, waitFor } from '../support/receiver';
import { startTestApp, type TestApp } from '../support/test-app';

// Jest runs from the project's root (as test/guides/examples.cases.ts relies on too).
const ROOT = process.cwd();
const ALERTS = join(ROOT, 'deploy/prometheus/alerts.yml');
const ALERT_TESTS = join(ROOT, 'deploy/prometheus/alerts.test.yml');
const PROMETHEUS_CONFIG = join(ROOT, 'deploy/prometheus/prometheus.yml');
const DASHBOARD = join(ROOT, 'deploy/grafana/dashboard.json');
const TOKEN = 'metrics-token-0123456789';

const onPath = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
// Skipped only on a workstation without them; CI (.ci/run installs both) runs them, and fails if one is missing.
const havePromtool = onPath('promtool') || process.env.CI === 'true';
const haveCompose = onPath('docker-compose') || process.env.CI === 'true';
// Debian's `prometheus` and `docker-compose` packages provide these; .ci/run installs both.
if (!havePromtool) console.warn('SKIPPING the promtool checks: promtool is not installed (apt-get install prometheus)');
if (!haveCompose) console.warn('SKIPPING the docker-compose check: docker-compose is not installed (apt-get install docker-compose)');

interface RuleFile {
  groups: { rules: { alert: string; expr: string; annotations?: Record<string, string> }[] }[];
}
interface Dashboard {
  panels: { title: string; targets: { expr: string }[] }[];
}

/** Every expression an alert rule evaluates, its annotations' `query "..."` templates included. */
function ruleExpressions(): string[] {
  const file = yaml.load(readFileSync(ALERTS, 'utf8')) as RuleFile;
  return file.groups.flatMap((g) =>
    g.rules.flatMap((r) => [
      r.expr,
      ...Object.values(r.annotations ?? {}).flatMap((a) => [...a.matchAll(/query "([^"]+)"/g)].map((m) => m[1])),
    ]),
  );
}

const panelExpressions = (): string[] =>
  (JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard).panels.flatMap((p) => p.targets.map((t) => t.expr));

function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

async function scrape(t: TestApp): Promise<string> {
  const res = await t.get('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return res.text;
}

describe('alert rules, dashboard and compose file', () => {
  (havePromtool ? it : it.skip)('promtool accepts the rules and the Prometheus config, and every alert unit test passes', () => {
    const run = (...args: string[]) => execFileSync('promtool', args, { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
    expect(run('check', 'rules', ALERTS)).toMatch(/SUCCESS: \d+ rules found/);
    expect(run('check', 'config', PROMETHEUS_CONFIG)).toContain('is valid prometheus config file syntax');
    expect(run('test', 'rules', ALERT_TESTS)).toContain('SUCCESS');
    // Every alert in the rules has at least one unit test.
    const tested = readFileSync(ALERT_TESTS, 'utf8');
    for (const g of (yaml.load(readFileSync(ALERTS, 'utf8')) as RuleFile).groups) {
      for (const r of g.rules) expect(tested).toContain(`alertname: ${r.alert}\n`);
    }
  });

  (haveCompose ? it : it.skip)('docker-compose config accepts the file and mounts the rules and the dashboard', () => {
    const out = execFileSync('docker-compose', ['-f', join(ROOT, 'docker-compose.yml'), 'config'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, WEBHOOK_SECRET_KEY: 'k'.repeat(44) },
    });
    const services = (yaml.load(out) as { services: Record<string, { volumes?: string[]; environment?: Record<string, string> }> })
      .services;
    const mounts = (name: string) => (services[name].volumes ?? []).map(String);
    expect(mounts('prometheus')).toContain(`${ALERTS}:/etc/prometheus/alerts.yml:ro`);
    expect(mounts('prometheus')).toContain(`${PROMETHEUS_CONFIG}:/etc/prometheus/prometheus.yml:ro`);
    expect(mounts('grafana')).toContain(`${DASHBOARD}:/var/lib/grafana/dashboards/receptionist.json:ro`);
    // The worker is scraped on the port the Prometheus config names.
    expect(services.worker.environment?.METRICS_PORT).toBe('9464');
    expect(readFileSync(PROMETHEUS_CONFIG, 'utf8')).toMatch(/names: \[worker\]\s+type: A\s+port: 9464/);
  });

  it('reads metric names out of PromQL, leaving functions, labels, ranges and keywords aside', () => {
    expect([
      ...metricNames('sum by (route) (rate(http_requests_total{status=~"5.."}[5m])) / sum(rate(http_requests_total[5m])) > 0.01'),
    ]).toEqual(['http_requests_total']);
    expect(
      [
        ...metricNames('max by (instance) (db_pool_connections{state="waiting"}) > 0 and on (instance) up == 1 unless absent(x_total)'),
      ].sort(),
    ).toEqual(['db_pool_connections', 'up', 'x_total']);
  });

  describe('against a real scrape', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ env: { METRICS_TOKEN: TOKEN, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    });
    afterAll(() => t.close());

    it('every metric a rule or a panel names is one the service exposes', async () => {
      const firm = await createFirm(t.app);
      expect((await t.get('/v1/account', { key: firm.keys.read })).status).toBe(200);
      const exposed = exposedNames(await scrape(t));
      const used = new Set([...ruleExpressions(), ...panelExpressions()].flatMap((e) => [...metricNames(e)]));
      expect(used.size).toBeGreaterThanOrEqual(10);
      expect([...used].filter((name) => !exposed.has(name))).toEqual([]);
    });

    it('a clean retention run and a clean recording sweep report when they finished', async () => {
      t.clock.freeze();
      await t.app.get(RetentionRunner).scheduled();
      await t.app.get(RecordingSweeper).scheduled();
      const at = t.clock.now().getTime() / 1000;
      const text = await scrape(t);
      expect(sample(text, 'scheduled_job_last_success_timestamp_seconds{task="retention"}')).toBe(at);
      expect(sample(text, 'scheduled_job_last_success_timestamp_seconds{task="recording_sweep"}')).toBe(at);
    });

    it('failed outbox and audit writes are counted, successful ones are not', async () => {
      const before = await scrape(t);
      const count = (text: string, write: string) => sample(text, `guarded_write_failures_total{write="${write}"}`) ?? -1;
      const firm = await createFirm(t.app);
      const record = (orgId: string) =>
        t.app
          .get(Database)
          .transaction((m) =>
            t.app
              .get(EventsService)
              .record(m, { orgId, livemode: true, type: 'webhook.test', test: true, data: { endpoint_id: randomUUID(), message: 'x' } }),
          );
      await record(firm.orgId);
      // A firm that does not exist: the outbox insert breaks its foreign key and the change rolls back.
      await expect(record(randomUUID())).rejects.toThrow();
      const audit = t.app.get(AuditService);
      const entry = (orgId: string) => ({
        orgId,
        actor: { type: 'owner' as const, id: null },
        action: 'test.entry',
        resourceType: 'org',
        resourceIds: [],
      });
      await audit.recordStandalone(entry(firm.orgId));
      await expect(audit.recordStandalone(entry(randomUUID()))).rejects.toThrow();
      const after = await scrape(t);
      expect(count(after, 'outbox') - count(before, 'outbox')).toBe(1);
      expect(count(after, 'audit') - count(before, 'audit')).toBe(1);
    });

    it('an endpoint in a run of failures is counted, with how long the run has lasted', async () => {
      const rx = await Receiver.start();
      try {
        rx.on('/down', behaviours.status(500, 'down'));
        const firm = await createFirm(t.app);
        await t.app.get(WebhookEndpointsService).create({ orgId: firm.orgId, url: rx.url('/down'), eventTypes: 'lead.created' });
        t.clock.freeze();
        await t.app.get(Database).transaction((m) =>
          t.app.get(EventsService).record(m, {
            orgId: firm.orgId,
            livemode: true,
            type: 'lead.created',
            data: { lead_id: 'lead_1', call_id: 'call_1', status: 'new', category: null, urgency: null, url: 'https://x/v1/leads/lead_1' },
          }),
        );
        await waitFor(async () => sample(await scrape(t), 'webhook_endpoints_failing') === 1, 'the failed attempt to be recorded', 30_000);
        t.clock.advance(2 * 3600_000);
        expect(sample(await scrape(t), 'webhook_oldest_failing_endpoint_seconds')).toBe(7200);
      } finally {
        await rx.close();
      }
    });
  });
});
