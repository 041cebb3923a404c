#!/usr/bin/env node
// Reference integration: mirrors a firm's calls and leads with the spec's sync recipe, and follows its events log.
// One pass per run (cron-style); state lives in STATE_DIR, so a restart resumes where the last
// finished pass left off. Usage: API_URL=http://localhost:3000 API_KEY=svc_live_... STATE_DIR=./sync node examples/sync-poller.mjs
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const api = process.env.API_URL ?? 'http://localhost:3000';
const key = process.env.API_KEY;
const dir = process.env.STATE_DIR ?? './sync-state';

const load = (name, fallback) => {
  try {
    return JSON.parse(readFileSync(join(dir, name), 'utf8'));
  } catch {
    return fallback;
  }
};
/** Written whole, then renamed: a crash mid-write leaves the previous state, never half a file. */
const save = (name, value) => {
  writeFileSync(join(dir, `${name}.tmp`), JSON.stringify(value));
  renameSync(join(dir, `${name}.tmp`), join(dir, name));
};

async function get(path, query) {
  const url = new URL(path, api);
  for (const [k, v] of Object.entries(query)) if (v !== null && v !== undefined) url.searchParams.set(k, String(v));
  for (;;) {
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    // Rate limited or briefly unavailable: wait as told, then ask again.
    if (res.status === 429 || res.status === 503) {
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
      continue;
    }
    const body = await res.json();
    // A database failover lost the event `after` names: go on from the event the service names instead.
    if (res.status === 400 && body.code === 'after_lost') return { after_lost: true, restart_after: body.restart_after };
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  }
}

/**
 * The recipe: keep the first page's as_of and pass it as the next pass's updated_since (never this
 * machine's clock); follow next_cursor; upsert on the id, since a record can come back more than once.
 */
async function syncList(kind, idField) {
  const since = load(`${kind}.since.json`, { updated_since: null }).updated_since;
  const mirror = load(`${kind}.json`, {});
  let asOf = null;
  let cursor = null;
  let seen = 0;
  do {
    const page = await get(`/v1/${kind}`, { limit: 100, updated_since: since, cursor });
    asOf ??= page.as_of;
    for (const item of page[kind]) mirror[item[idField]] = item;
    seen += page[kind].length;
    cursor = page.has_more ? page.next_cursor : null;
  } while (cursor);
  // The mirror first, then the position: a crash in between only means reading some records again.
  save(`${kind}.json`, mirror);
  save(`${kind}.since.json`, { updated_since: asOf });
  return { seen, updated_since: since, as_of: asOf };
}

/**
 * The events log: from the saved `after`, every page in order, each event handled once (its id remembered: an event
 * can come again after a failover's after_lost, which resumes from restart_after).
 */
async function syncEvents() {
  let { after } = load('events.after.json', { after: null });
  const handled = new Set(load('events.handled.json', []));
  let seen = 0;
  let restarts = 0;
  for (;;) {
    const page = await get('/v1/events', { limit: 100, after });
    if (page.after_lost) {
      restarts++;
      after = page.restart_after;
      continue;
    }
    for (const event of page.events) {
      if (!handled.has(event.id)) seen++;
      handled.add(event.id);
    }
    after = page.next_after ?? after;
    if (!page.has_more) break;
  }
  save('events.handled.json', [...handled].slice(-50_000));
  save('events.after.json', { after });
  return { seen, after, restarts };
}

if (!key) {
  process.stderr.write('API_KEY is required\n');
  process.exit(2);
}
mkdirSync(dir, { recursive: true });
const calls = await syncList('calls', 'call_id');
const leads = await syncList('leads', 'lead_id');
const events = await syncEvents();
process.stdout.write(`${JSON.stringify({ calls, leads, events })}\n`);
