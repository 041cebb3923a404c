import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DOC = JSON.parse(readFileSync(fileURLToPath(new URL('../soak-call-document.json', import.meta.url)), 'utf8'));
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const STATUSES = ['contacted', 'signed', 'rejected'];

/**
 * Every answer the run received, by operation: status, Retry-After, when. What the verdict reads for "no 500",
 * "503 carries Retry-After" and how long the 503s lasted around a failover.
 */
export class Answers {
  constructor() {
    this.all = [];
    this.failedRequests = 0;
  }

  record(op, status, retryAfter) {
    this.all.push({ op, status, retryAfter, at: Date.now() });
  }
}

/** Requests to one api process: an API key's, or the pipeline's internal token. */
export function httpClient(baseUrl, internalToken, answers) {
  return async function request(op, method, path, { key, internal, body } = {}) {
    const headers = { authorization: `Bearer ${internal ? internalToken : key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      const res = await fetch(`${baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      answers.record(op, res.status, res.headers.get('retry-after'));
      let json = null;
      try {
        json = JSON.parse(text);
      } catch {
        // not JSON (a proxy's page): kept as null
      }
      return { status: res.status, body: json, retryAfter: Number(res.headers.get('retry-after') ?? 0) };
    } catch {
      answers.failedRequests++;
      return { status: 0, body: null, retryAfter: 0 };
    }
  };
}

/**
 * A short wait after a 429, a 503 or a failed request (100 to 250 ms, Retry-After capped): the run measures how soon
 * the service takes work again after a switch, which a client honouring the 5 s Retry-After would hide.
 */
const backOff = (answer) => pause(Math.max(100, Math.min(answer.retryAfter * 1000, 250)));

/**
 * What the writers were told was done: each call the pipeline's ingestion acknowledged, and each lead change a
 * PATCH acknowledged (with the lead's updated_at it answered), to hold against the database at the end.
 */
export function newLedger() {
  return { calls: [], patches: [], leads: [] };
}

/** Ingests new calls, each with a lead (call.completed and lead.created), until `running()` turns false. */
export async function ingestLoop(firm, request, ledger, running) {
  while (running()) {
    const callId = `call_fo_${firm.tag}_${++firm.seq}`;
    const doc = { ...DOC, started_at: new Date().toISOString(), processing_complete: true };
    const r = await request('ingest', 'PUT', `/internal/v1/orgs/${firm.orgId}/calls/${callId}`, { internal: true, body: doc });
    if (r.status === 200 || r.status === 201) {
      ledger.calls.push(callId);
      if (r.body?.lead_id) ledger.leads.push(r.body.lead_id);
    } else await backOff(r);
  }
}

/** PATCHes known leads (lead.updated), until `running()` turns false. */
export async function patchLoop(firm, request, ledger, running) {
  while (running()) {
    const leadId = ledger.leads[Math.floor(Math.random() * ledger.leads.length)];
    if (!leadId) {
      await pause(50);
      continue;
    }
    const status = STATUSES[Math.floor(Math.random() * STATUSES.length)];
    const r = await request('patch', 'PATCH', `/v1/leads/${leadId}`, { key: firm.writerKey, body: { status } });
    if (r.status === 200 && r.body?.changed) ledger.patches.push({ leadId, updatedAt: r.body.lead.updated_at });
    else if (r.status !== 200 && r.status !== 409) await backOff(r);
  }
}

/**
 * A firm system following GET /v1/events with wait, as the README's recipe says: from `next_after`, each event id
 * handled once, and on 400 after_lost from `restart_after`. Keeps every id it was given, in order.
 */
export class EventsReader {
  constructor(name, firm, request) {
    this.name = name;
    this.firm = firm;
    this.request = request;
    this.after = null;
    this.got = new Set();
    this.afterLost = [];
    this.unexpected = [];
  }

  async follow(running) {
    while (running()) await this.page(2);
  }

  /** Reads until a page comes back empty (no wait), or the deadline. */
  async catchUp(deadlineMs) {
    while (Date.now() < deadlineMs) if ((await this.page(0)) === 0) return;
  }

  async page(wait) {
    const query = new URLSearchParams({ limit: '100', wait: String(wait) });
    if (this.after) query.set('after', this.after);
    const r = await this.request(`events ${this.name}`, 'GET', `/v1/events?${query}`, { key: this.firm.readerKey });
    if (r.status === 200) {
      for (const e of r.body.events) this.got.add(e.id);
      this.after = r.body.next_after ?? this.after;
      return r.body.events.length;
    }
    if (r.status === 400 && r.body?.code === 'after_lost') {
      this.afterLost.push({ lost: this.after, restartAfter: r.body.restart_after, at: Date.now() });
      this.after = r.body.restart_after;
      return -1;
    }
    if (r.status !== 0 && r.status !== 429 && r.status !== 503) this.unexpected.push({ status: r.status, body: r.body });
    await backOff(r);
    return -1;
  }
}

/** The calls sync recipe: updated_since = the previous pass's first as_of; the mirror keyed by call_id. */
export class CallsPoller {
  constructor(firm, request) {
    this.firm = firm;
    this.request = request;
    this.since = null;
    this.mirror = new Map();
  }

  async follow(running) {
    while (running()) {
      await this.pass();
      await pause(200);
    }
  }

  async pass() {
    let cursor = null;
    let asOf = null;
    do {
      const query = new URLSearchParams({ limit: '100' });
      if (this.since) query.set('updated_since', this.since);
      if (cursor) query.set('cursor', cursor);
      const r = await this.request('calls poll', 'GET', `/v1/calls?${query}`, { key: this.firm.readerKey });
      if (r.status !== 200) return backOff(r);
      asOf ??= r.body.as_of;
      for (const c of r.body.calls) this.mirror.set(c.call_id, c.updated_at);
      cursor = r.body.has_more ? r.body.next_cursor : null;
    } while (cursor);
    this.since = asOf;
  }
}
