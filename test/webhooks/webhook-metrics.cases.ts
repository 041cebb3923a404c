import { Database } from '../../src/database/sql';
import { EventsService } from '../../src/events';
import { WebhookEndpointsService } from '../../src/webhooks';
import { createFirm, type TestFirm } from '../support/factories';
import { freePort } from '../support/net';
import { serviceEnv, startService, stopService, type ServiceProcess } from '../support/processes';
import { behaviours, Receiver, waitFor } from '../support/receiver';
import { startTestApp, type TestApp } from '../support/test-app';
import { recordEvent } from '../support/events';

const TOKEN = 'metrics-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };

/** The value of one sample of Prometheus text (`name{labels} value`); null when the series is absent. */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

const attempts = (text: string) => ({
  success: sample(text, 'webhook_delivery_attempts_total{outcome="success"}'),
  http_error: sample(text, 'webhook_delivery_attempts_total{outcome="http_error"}'),
  no_response: sample(text, 'webhook_delivery_attempts_total{outcome="no_response"}'),
});
const due = (text: string) => ({
  due: sample(text, 'webhook_deliveries_due'),
  oldest: sample(text, 'webhook_oldest_due_delivery_age_seconds'),
});

async function scrape(t: TestApp): Promise<string> {
  const res = await t.get('/metrics', { headers: AUTH });
  expect(res.status).toBe(200);
  return res.text;
}

const record = (t: TestApp, orgId: string, type: 'lead.created' | 'call.completed') =>
  t.app.get(Database).transaction((m) => recordEvent(t.app.get(EventsService), m, { orgId, type, data: {} }));

const endpoint = (t: TestApp, f: TestFirm, url: string, eventTypes: string) =>
  t.app.get(WebhookEndpointsService).create({ orgId: f.orgId, url, eventTypes });

describe('webhook delivery metrics', () => {
  it('deliveries due and the age of the oldest are read from the database at scrape time, on the application clock', async () => {
    // ROLE=api sends nothing: what is recorded stays due.
    const t = await startTestApp({ env: { ROLE: 'api', METRICS_TOKEN: TOKEN, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    try {
      t.clock.freeze();
      expect(due(await scrape(t))).toEqual({ due: 0, oldest: 0 });
      const f = await createFirm(t.app, { publish: false });
      await endpoint(t, f, 'http://127.0.0.1:9/a', 'lead.created,call.completed');
      await endpoint(t, f, 'http://127.0.0.1:9/b', 'lead.created');

      await record(t, f.orgId, 'lead.created'); // two deliveries, due now
      t.clock.advance(30_000);
      await record(t, f.orgId, 'call.completed'); // one more, 30 s later
      t.clock.advance(60_000);
      expect(due(await scrape(t))).toEqual({ due: 3, oldest: 90 });

      // Seen from before the first event, nothing is due yet.
      t.clock.advance(-100_000);
      expect(due(await scrape(t))).toEqual({ due: 0, oldest: 0 });
      // Between the two: only the first event's deliveries.
      t.clock.advance(25_000);
      expect(due(await scrape(t))).toEqual({ due: 2, oldest: 15 });
      // An api process sends nothing, so it counts no attempt.
      expect(attempts(await scrape(t))).toEqual({ success: 0, http_error: 0, no_response: 0 });
    } finally {
      await t.close();
    }
  });

  describe('with a separate worker process scraped on METRICS_PORT', () => {
    let api: TestApp;
    let worker: ServiceProcess;
    let rx: Receiver;
    let metricsUrl: string;

    beforeAll(async () => {
      rx = await Receiver.start();
      rx.on('/fail', behaviours.status(500, 'boom')).on('/reset', behaviours.reset());
      api = await startTestApp({ env: { ROLE: 'api', METRICS_TOKEN: TOKEN, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
      const port = await freePort();
      metricsUrl = `http://127.0.0.1:${port}/metrics`;
      worker = await startService('worker', serviceEnv(api.databaseUrl, { METRICS_PORT: String(port), METRICS_TOKEN: TOKEN }));
    });
    afterAll(async () => {
      if (worker) await stopService(worker, 'SIGTERM');
      await api?.close();
      await rx?.close();
    });

    // Raw fetch on purpose: METRICS_PORT is the worker's own /metrics listener, not the API, and outside its document.
    const scrapeWorker = async () => {
      const res = await fetch(metricsUrl, { headers: AUTH });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain');
      return res.text();
    };

    it('counts each attempt by outcome in the process that sent it, and the delay from event commit to first attempt', async () => {
      expect((await fetch(metricsUrl)).status).toBe(401);
      expect((await fetch(metricsUrl.replace('/metrics', '/v1/calls'), { headers: AUTH })).status).toBe(404);
      const before = await scrapeWorker();
      expect(attempts(before)).toEqual({ success: 0, http_error: 0, no_response: 0 });
      expect(sample(before, 'webhook_first_attempt_delay_seconds_count')).toBe(0);

      const f = await createFirm(api.app, { publish: false });
      const ids: string[] = [];
      for (const path of ['/ok', '/fail', '/reset']) ids.push((await endpoint(api, f, rx.url(path), 'lead.created')).endpoint.id);
      // The event committed 20 s before the worker's clock: the first attempts come 20 s and a little after it.
      api.clock.advance(-20_000);
      await record(api, f.orgId, 'lead.created');
      api.clock.reset();

      await waitFor(
        async () => {
          const rows = await api.sql(
            `SELECT 1 FROM webhook_deliveries WHERE endpoint_id = ANY($1::uuid[]) AND attempt_count = 1 AND id NOT IN (SELECT id FROM webhook_pending_deliveries WHERE locked_until IS NOT NULL)`,
            [ids],
          );
          return rows.length === 3;
        },
        'one recorded attempt of each delivery',
        20_000,
      );

      const after = await scrapeWorker();
      expect(attempts(after)).toEqual({ success: 1, http_error: 1, no_response: 1 });
      expect(sample(after, 'webhook_first_attempt_delay_seconds_count')).toBe(3);
      expect(sample(after, 'webhook_first_attempt_delay_seconds_bucket{le="10"}')).toBe(0);
      expect(sample(after, 'webhook_first_attempt_delay_seconds_bucket{le="60"}')).toBe(3);
      // The api process sent nothing: attempts live in the worker's series only.
      expect(attempts(await scrape(api))).toEqual({ success: 0, http_error: 0, no_response: 0 });

      // The two failed deliveries wait a minute for their retry; the api process, an hour on, sees them due.
      const [{ next }] = await api.sql(
        `SELECT min(next_attempt_at) AS next FROM webhook_deliveries WHERE endpoint_id = ANY($1::uuid[]) AND status = 'pending'`,
        [ids],
      );
      api.clock.freeze();
      api.clock.advance(3_600_000);
      const seen = due(await scrape(api));
      expect(seen.due).toBe(2);
      expect(seen.oldest).toBeCloseTo((api.clock.now().getTime() - new Date(next).getTime()) / 1000, 3);
    });
  });
});
