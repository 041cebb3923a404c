const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A client's copy of each firm's calls and leads, built only with the spec's
 * recipe: a run lists with updated_since = the previous run's as_of (none the
 * first time), follows next_cursor to the end with the same filters, keeps the
 * as_of of its first page for the next run, and upserts on call_id / lead_id.
 * A run that fails part-way (an outage, a killed process) is abandoned and
 * started again from the same updated_since.
 */
export class Mirror {
  constructor(http, firm) {
    this.http = http;
    this.firm = firm;
    this.state = {
      calls: { asOf: null, items: new Map(), runs: 0, abandoned: 0 },
      leads: { asOf: null, items: new Map(), runs: 0, abandoned: 0 },
    };
  }

  /** One run for one kind; true when it reached the last page. */
  async run(kind) {
    const s = this.state[kind];
    const idKey = kind === 'calls' ? 'call_id' : 'lead_id';
    const seen = [];
    let firstAsOf = null;
    let cursor = null;
    for (let page = 0; page < 10_000; page++) {
      const q = new URLSearchParams({ limit: '100' });
      if (s.asOf) q.set('updated_since', s.asOf);
      if (cursor) q.set('cursor', cursor);
      const r = await this.http.request(`mirror ${kind}`, 'GET', `/v1/${kind}?${q}`, { key: this.firm.reader.key });
      if (r.status !== 200) {
        s.abandoned++;
        return false;
      }
      firstAsOf ??= r.body.as_of;
      seen.push(...r.body[kind]);
      if (!r.body.has_more) break;
      cursor = r.body.next_cursor;
    }
    for (const item of seen) s.items.set(item[idKey], item);
    s.asOf = firstAsOf;
    s.runs++;
    return true;
  }

  /** Polls both kinds until the run (bench/chaos/run-length.mjs) is over, a run every second or so. */
  async poll(runLength) {
    while (!runLength.over()) {
      await this.run('calls');
      await this.run('leads');
      await runLength.pause(1000);
    }
  }

  /** After the run: one more complete run of each kind (retried, bounded). */
  async finish() {
    for (const kind of ['calls', 'leads']) {
      let done = false;
      for (let i = 0; i < 30 && !done; i++) {
        done = await this.run(kind);
        if (!done) await pause(1000);
      }
      if (!done) throw new Error(`the mirror's last ${kind} run did not complete`);
    }
  }
}
