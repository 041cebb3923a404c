#!/usr/bin/env node
// Webhooks on a laptop: follows GET /v1/events with `wait` and POSTs each event to a local URL exactly as the
// service delivers it (the same body bytes, Standard-Webhooks headers and signature), so a receiver's verification
// code runs unchanged. Plain Node 22, no build step, nothing from the service's own sources.
//
//   node clients/typescript/bin/listen.mjs --api-url URL --key KEY --forward-to URL
//        [--types t1,t2] [--secret whsec_...] [--after EVT_ID] [--timeout SECONDS] [--json]
//
// What it trusts the API with is bounded (bin/listen/api.mjs): every answer is read as a stream and refused past
// 8 MiB (decompressed), each must arrive in full within --timeout (a waiting poll gets its wait on top), and
// requests to the API are paced to at most 20 a second, whatever the pages and their cursors say.
import { createHmac, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Api, DEFAULT_TIMEOUT_S, eventsPage, pause, reason } from './listen/api.mjs';
import { Fatal, jsonLine, printable } from './listen/terminal.mjs';

const USAGE =
  'usage: listen.mjs --api-url URL --key KEY --forward-to URL [--types t1,t2] [--secret whsec_...] [--after EVT_ID] [--timeout SECONDS] [--json]';
const WAIT_SECONDS = 25;
const FORWARD_TIMEOUT_MS = 10_000;
/** Polls that forward nothing start at least this far apart, whatever the API answers and its cursors do (no hot loop). */
const MIN_POLL_MS = 1_000;
/** Forwarded event ids remembered, so events that come again after a restart point (after_lost) are forwarded once. */
const SENT_IDS_KEPT = 10_000;
/** The most of a receiver's answer read (it is not used: read so the connection can be kept, then dropped). */
const RECEIVER_ANSWER_BYTES = 64 * 1024;

function options(argv) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        'api-url': { type: 'string' },
        key: { type: 'string' },
        'forward-to': { type: 'string' },
        types: { type: 'string' },
        secret: { type: 'string' },
        after: { type: 'string' },
        timeout: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    }));
  } catch (err) {
    throw new Fatal(`${err.message}\n${USAGE}`, 2);
  }
  for (const name of ['api-url', 'key', 'forward-to']) if (!values[name]) throw new Fatal(`--${name} is required\n${USAGE}`, 2);
  for (const name of ['api-url', 'forward-to']) {
    if (!URL.canParse(values[name]) || !/^https?:$/.test(new URL(values[name]).protocol)) {
      throw new Fatal(`--${name} must be an http(s) URL`, 2);
    }
  }
  const types =
    values.types === undefined
      ? null
      : values.types
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean);
  if (types && types.length === 0) throw new Fatal('--types must name at least one event type', 2);
  if (values.secret !== undefined && !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(values.secret)) {
    throw new Fatal('--secret must be a signing secret: whsec_ followed by base64', 2);
  }
  const timeout = values.timeout === undefined ? DEFAULT_TIMEOUT_S : Number(values.timeout);
  if (!/^\d+(\.\d+)?$/.test(values.timeout ?? '1') || !(timeout >= 0.1 && timeout <= 600)) {
    throw new Fatal('--timeout must be a number of seconds from 0.1 to 600', 2);
  }
  return {
    apiUrl: values['api-url'].replace(/\/+$/, ''),
    key: values.key,
    forwardTo: values['forward-to'],
    types,
    secret: values.secret ?? null,
    after: values.after ?? null,
    timeoutMs: Math.max(100, Math.round(timeout * 1000)),
    json: values.json,
  };
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`, keyed by the base64 after `whsec_`. */
function signature(secret, id, timestamp, body) {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;
}

/** The newest listable event's id (paging the kept log), or null when there is none: forwarding starts after it. */
async function newestEventId(api, log) {
  let after = null;
  for (;;) {
    const page = await api.get(`/v1/events?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`, log);
    if (!page) return after;
    const body = eventsPage(page.text, true);
    if (body.has_more && (body.next_after === null || body.next_after === after)) {
      throw new Fatal('the API answered GET /v1/events with has_more but no next page; is --api-url the API?');
    }
    after = body.next_after ?? after;
    if (!body.has_more) return after;
  }
}

/** POSTs one event's exact bytes, signed; never throws (a failing receiver is reported, not fatal). */
async function forward(opts, api, secret, id, body) {
  const timestamp = Math.floor(Date.now() / 1000);
  const started = performance.now();
  const post = async (signal) => {
    const res = await fetch(opts.forwardTo, {
      method: 'POST',
      redirect: 'manual',
      signal,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'receptionist-listen/1',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature(secret, id, timestamp, body),
      },
      body,
    });
    await discard(res);
    return res.status;
  };
  try {
    const status = await api.requests.run(FORWARD_TIMEOUT_MS, post, () => new Error(`no answer within ${FORWARD_TIMEOUT_MS / 1000} s`));
    return { status, ok: status >= 200 && status < 300, ms: Math.round(performance.now() - started), error: null };
  } catch (err) {
    return { status: null, ok: false, ms: Math.round(performance.now() - started), error: reason(err) };
  }
}

/** Reads and drops at most RECEIVER_ANSWER_BYTES of an answer, then lets the rest go. */
async function discard(res) {
  if (!res.body) return;
  const reader = res.body.getReader();
  for (let read = 0; read <= RECEIVER_ANSWER_BYTES;) {
    const { done, value } = await reader.read();
    if (done) return;
    read += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
}

/** One line per forwarded event; what came from the API (type, id) or the receiver (an error) is escaped for a terminal. */
function report(opts, event, outcome) {
  if (opts.json) {
    const line = { kind: 'forwarded', event_id: event.id, type: event.type, status: outcome.status, ok: outcome.ok, ms: outcome.ms };
    if (outcome.error) line.error = outcome.error;
    process.stdout.write(jsonLine(line));
    return;
  }
  const result = outcome.status === null ? `failed (${printable(outcome.error)})` : String(outcome.status);
  process.stdout.write(`${new Date().toISOString()}  ${printable(event.type)}  ${printable(event.id)}  -> ${result} in ${outcome.ms} ms\n`);
}

/** The ids of the events forwarded last, at most `size` of them (the oldest forgotten first). */
class RecentIds {
  constructor(size) {
    this.size = size;
    this.ids = new Set();
  }
  has(id) {
    return this.ids.has(id);
  }
  add(id) {
    this.ids.add(id);
    if (this.ids.size > this.size) this.ids.delete(this.ids.values().next().value);
  }
}

/** An `after` the log lost in a database failover: says so once, and goes on from the API's restart point. */
function resumed(log, after, restartAfter) {
  log(
    printable(
      `the events after ${after} were lost in a database failover; resuming ${restartAfter ? `after ${restartAfter}` : 'from the oldest kept event'} (events already forwarded are not forwarded again)`,
    ),
  );
  return restartAfter;
}

async function run(opts, signal) {
  const log = (line) => process.stderr.write(`listen: ${line}\n`);
  const sent = new RecentIds(SENT_IDS_KEPT);
  const api = new Api(opts.apiUrl, opts.key, signal, { timeoutMs: opts.timeoutMs });
  const secret = opts.secret ?? `whsec_${randomBytes(32).toString('base64')}`;
  // Checks the key (and --after) before anything is printed as ready.
  let after = opts.after ?? (await newestEventId(api, log));
  if (opts.after) {
    const checked = await api.get(`/v1/events?limit=1&after=${encodeURIComponent(opts.after)}`, log);
    if (checked?.restartAfter !== undefined) after = resumed(log, after, checked.restartAfter);
  }
  if (signal.aborted) return;
  const ready = { kind: 'ready', forward_to: opts.forwardTo, after, types: opts.types };
  if (opts.json) process.stdout.write(jsonLine(opts.secret ? ready : { ...ready, secret }));
  else if (!opts.secret) log(`signing with a new secret (shown only now): ${secret}`);
  log(
    printable(
      `forwarding ${opts.types ? opts.types.join(', ') : 'every event'} ${after ? `after ${after}` : 'from the start'} to ${opts.forwardTo}`,
    ),
  );

  const types = opts.types ? new Set(opts.types) : null;
  const typeParam = types?.size === 1 ? `&type=${encodeURIComponent(opts.types[0])}` : '';
  while (!signal.aborted) {
    const query = `wait=${WAIT_SECONDS}${typeParam}${after ? `&after=${encodeURIComponent(after)}` : ''}`;
    const started = performance.now();
    const page = await api.get(`/v1/events?${query}`, log, WAIT_SECONDS);
    if (!page) return;
    if (page.restartAfter !== undefined) {
      after = resumed(log, after, page.restartAfter);
      continue;
    }
    let forwarded = 0;
    for (const event of eventsPage(page.text, false).events) {
      if (signal.aborted) return;
      after = event.id;
      if (types && !types.has(event.type)) continue;
      // Resumed from a restart point, the events up to where it stood come again: each is forwarded once.
      if (sent.has(event.id)) continue;
      // The exact bytes the service delivers for this event (GET /v1/events/{id}).
      const one = await api.get(`/v1/events/${encodeURIComponent(event.id)}`, log);
      if (!one) return;
      if (one.status === 404) continue;
      report(opts, event, await forward(opts, api, secret, event.id, one.text));
      sent.add(event.id);
      forwarded++;
    }
    // A page that forwarded nothing and came back at once (an API that does not wait, or whose cursor goes back and
    // forth over events that are then not found): the next poll waits. Whatever the cursor does, the API's requests
    // are paced too (Api).
    const early = MIN_POLL_MS - (performance.now() - started);
    if (forwarded === 0 && early > 0) await pause(early, signal);
  }
}

const stop = new AbortController();
for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => stop.abort());
try {
  await run(options(process.argv.slice(2)), stop.signal);
  process.stderr.write('listen: stopped\n');
} catch (err) {
  // One line, never a stack: whatever went wrong, the API's text is escaped.
  process.stderr.write(`listen: ${err instanceof Fatal ? err.message : `unexpected error: ${printable(err?.message ?? String(err))}`}\n`);
  process.exitCode = err instanceof Fatal ? err.code : 1;
}
