import { Webhook } from 'standardwebhooks';
import { Database } from '../../src/database/sql';
import { EventsService } from '../../src/events';
import { eventsListable, recordEvent, restrictKey } from '../support/events';
import { createFirm, type TestFirm } from '../support/factories';
import { listen, type Listening } from '../support/listen';
import { freePort } from '../support/net';
import { behaviours, Receiver, waitFor } from '../support/receiver';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

/** The command against the real service; test/listen-hostile-api.e2e.spec.ts runs it against a hostile fake one. */
describe('listen: the events feed forwarded to a local receiver, signed', () => {
  let t: TestApp;
  let firm: TestFirm;
  let receiver: Receiver;
  const running: Listening[] = [];

  const record = (type: 'call.completed' | 'lead.created' | 'lead.updated') =>
    t.app.get(Database).transaction((m) => recordEvent(t.app.get(EventsService), m, { orgId: firm.orgId, type, data: {} }));
  const start = (extra: string[], forwardTo = receiver.url('/hook')) => {
    const l = listen(['--api-url', t.baseUrl, '--key', firm.keys.read, '--forward-to', forwardTo, '--json', ...extra]);
    running.push(l);
    return l;
  };
  const forwarded = (l: Listening) => l.lines.filter((x) => x.kind === 'forwarded');

  beforeAll(async () => {
    t = await sharedTestApp();
    firm = await createFirm(t.app, { publish: false });
    await restrictKey(t, firm.keyIds.read, ['webhooks:read']);
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    for (const l of running) l.child.kill('SIGKILL');
    await receiver.close();
  });
  afterEach(() => {
    receiver.received.length = 0;
    receiver.on('/hook', behaviours.status(200));
  });

  it('forwards only new events, byte for byte and verifiable with the secret it printed; reports and survives a failing receiver', async () => {
    const old = await record('call.completed');
    await eventsListable(t, [old.envelope.id]); // the newest event at start, which listen starts after
    const l = start([]);
    const ready = await waitFor(() => l.lines[0], 'the ready line', 15_000);
    expect(ready).toMatchObject({ kind: 'ready', after: old.envelope.id });
    expect(ready.secret).toMatch(/^whsec_/);

    const first = await record('lead.created');
    await waitFor(() => forwarded(l).length === 1, 'the first forward', 10_000);
    const [got] = receiver.at('/hook');
    expect(got.headers['webhook-id']).toBe(first.envelope.id);
    // The receiver's production code: verify the raw body with the secret.
    expect(new Webhook(ready.secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({ id: first.envelope.id });
    expect(got.body).toBe((await t.get(`/v1/events/${first.envelope.id}`, { key: firm.keys.read })).text);
    expect(forwarded(l)[0]).toMatchObject({ event_id: first.envelope.id, type: 'lead.created', status: 200, ok: true });
    expect(typeof forwarded(l)[0].ms).toBe('number');

    receiver.on('/hook', behaviours.status(500, 'broken'));
    const failed = await record('lead.updated');
    await waitFor(() => forwarded(l).length === 2, 'the failed forward', 10_000);
    expect(forwarded(l)[1]).toMatchObject({ event_id: failed.envelope.id, status: 500, ok: false });
    receiver.on('/hook', behaviours.status(204));
    const after = await record('call.completed');
    await waitFor(() => forwarded(l).length === 3, 'the forward after the failure', 10_000);
    expect(forwarded(l)[2]).toMatchObject({ event_id: after.envelope.id, status: 204, ok: true });
    expect(receiver.at('/hook').map((r) => r.headers['webhook-id'])).not.toContain(old.envelope.id);

    l.child.kill('SIGTERM');
    expect(await l.exited).toBe(0);
  });

  it('--after replays from an id, --types filters, --secret signs with the given secret', async () => {
    const from = await record('lead.updated');
    const a = await record('lead.created');
    await record('lead.updated');
    const b = await record('call.completed');
    const secret = `whsec_${Buffer.from('a fixed secret of thirty-two bytes').toString('base64')}`;
    const l = start(['--after', from.envelope.id, '--types', 'lead.created,call.completed', '--secret', secret]);
    await waitFor(() => forwarded(l).length === 2, 'the replayed events', 15_000);
    expect(l.lines[0]).toMatchObject({ kind: 'ready', after: from.envelope.id });
    expect(l.lines[0].secret).toBeUndefined();
    expect(forwarded(l).map((x) => x.event_id)).toEqual([a.envelope.id, b.envelope.id]);
    for (const got of receiver.at('/hook'))
      expect(() => new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).not.toThrow();
    l.child.kill('SIGINT');
    expect(await l.exited).toBe(0);
  });

  it('a receiver that refuses connections is reported on each event, never fatal', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}/hook`;
    const from = await record('lead.updated');
    const [x, y] = [await record('lead.created'), await record('lead.created')];
    const l = start(['--after', from.envelope.id], nobody);
    await waitFor(() => forwarded(l).length === 2, 'both failed forwards', 15_000);
    expect(forwarded(l).map((r) => r.event_id)).toEqual([x.envelope.id, y.envelope.id]);
    for (const r of forwarded(l)) expect(r).toMatchObject({ status: null, ok: false, error: expect.stringMatching(/ECONNREFUSED/) });
    expect(l.child.exitCode).toBeNull();
    l.child.kill('SIGTERM');
    expect(await l.exited).toBe(0);
  });

  it('a key without webhooks:read gets a clear error and a non-zero exit', async () => {
    const other = await createFirm(t.app, { publish: false });
    await restrictKey(t, other.keyIds.read, ['calls:read']);
    const l = listen(['--api-url', t.baseUrl, '--key', other.keys.read, '--forward-to', receiver.url('/hook'), '--json']);
    expect(await l.exited).toBe(1);
    expect(l.stderr()).toMatch(/webhooks:read/);
    expect(l.lines).toEqual([]);
    expect(l.stderr()).not.toContain(other.keys.read);
  });

  it('without --json: the generated secret once on stderr, one line per forwarded event on stdout', async () => {
    const from = await record('lead.updated');
    const e = await record('lead.created');
    const args = ['--api-url', t.baseUrl, '--key', firm.keys.read, '--forward-to', receiver.url('/hook'), '--after', from.envelope.id];
    const l = listen(args, true);
    running.push(l);
    await waitFor(() => l.lines.length === 1, 'the forwarded line', 15_000);
    expect(l.lines[0]).toMatch(new RegExp(`lead\\.created\\s+${e.envelope.id}\\s+-> 200 in \\d+ ms$`));
    const secret = /new secret \(shown only now\): (whsec_\S+)/.exec(l.stderr())![1];
    const [got] = receiver.at('/hook');
    expect(() => new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).not.toThrow();
    l.child.kill('SIGTERM');
    expect(await l.exited).toBe(0);
  });

  it('missing options are a usage error', async () => {
    const l = listen(['--api-url', t.baseUrl]);
    expect(await l.exited).toBe(2);
    expect(l.stderr()).toMatch(/--key is required/);
  });
});
