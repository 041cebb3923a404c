import { AdjustableClock } from '../common/clock';
import { demoHistory } from './demo-history';

const DAY = 86_400_000;
const chicago = new Intl.DateTimeFormat('en-US', { timeZone: 'America/Chicago', weekday: 'short', hour: 'numeric', hourCycle: 'h23' });
const local = (iso: string) => {
  const parts = Object.fromEntries(chicago.formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
  return { weekday: parts.weekday, hour: Number(parts.hour) };
};

/** A clock standing at `at`, as the demo service would read it. */
function clockAt(at: string): AdjustableClock {
  const clock = new AdjustableClock();
  clock.advance(Date.parse(at) - clock.now().getTime());
  return clock;
}

describe('demo history at any instant', () => {
  const instants = [
    '2026-11-24T00:00:00.000Z',
    '2026-11-24T11:59:00.000Z',
    '2026-11-24T23:59:00.000Z',
    // Either side of Chicago's DST changes (2026-03-08 and 2026-11-01, 2 am local).
    '2026-03-08T07:59:00.000Z',
    '2026-03-08T08:01:00.000Z',
    '2026-11-01T06:59:00.000Z',
    '2026-11-01T07:01:00.000Z',
    // The window itself spanning a DST change.
    '2026-04-20T16:30:00.000Z',
  ];

  it.each(instants)('at %s: 220 calls, all within the last 60 days', (at) => {
    const now = clockAt(at).now();
    const { documents } = demoHistory(now);
    expect(documents).toHaveLength(220);
    for (const d of documents) {
      const age = now.getTime() - Date.parse(d.started_at as string);
      expect(age).toBeGreaterThan(0);
      expect(age).toBeLessThan(60 * DAY);
    }
    expect(new Set(documents.map((d) => d.call_id)).size).toBe(220);
  });

  it.each(instants)('at %s: office-hours calls fall on Chicago weekdays between 8 am and 6 pm', (at) => {
    const { documents } = demoHistory(clockAt(at).now());
    const inHours = documents.filter((d) => (d.handling as { business_hours?: boolean } | null)?.business_hours === true);
    expect(inHours.length).toBeGreaterThan(100);
    for (const d of inHours) {
      const { weekday, hour } = local(d.started_at as string);
      expect(['Mon', 'Tue', 'Wed', 'Thu', 'Fri']).toContain(weekday);
      expect(hour).toBeGreaterThanOrEqual(8);
      expect(hour).toBeLessThan(18);
    }
  });

  it.each(instants)('at %s: leads in every status, the last three days still new', (at) => {
    const now = clockAt(at).now();
    const { documents, leads } = demoHistory(now);
    expect(new Set(leads.map((l) => l.status))).toEqual(new Set(['new', 'contacted', 'signed', 'rejected']));
    const startedAt = new Map(documents.map((d) => [d.call_id, Date.parse(d.started_at as string)]));
    for (const l of leads) {
      if (startedAt.get(l.callId)! > now.getTime() - 3 * DAY) expect(l.status).toBe('new');
      if (l.status === 'signed') expect(l.external_id).toMatch(/^HIL-2026-\d{4}$/);
    }
  });

  it('is deterministic: the same instant and seed give the same history, another seed another one', () => {
    const now = clockAt('2026-11-24T11:59:00.000Z').now();
    expect(demoHistory(now)).toEqual(demoHistory(now));
    expect(demoHistory(now, 7).documents).not.toEqual(demoHistory(now).documents);
  });
});
