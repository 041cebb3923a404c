import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cluster.mjs';

const ALL_TYPES = 'call.completed,lead.created,lead.updated';

/**
 * One firm through the CLI (the dashboard's stand-in): published settings, a
 * read key and two read-update-leads keys (two clients that race on PATCH), and
 * two webhook endpoints on the receivers (one for every type, one for leads only).
 */
export async function seedFirm(n, env, receivers) {
  const { DEMO_SETTINGS } = await import(new URL('../../dist/src/demo/index.js', import.meta.url).href);
  const dir = mkdtempSync(join(tmpdir(), 'chaos-settings-'));
  writeFileSync(join(dir, 'settings.json'), JSON.stringify(DEMO_SETTINGS));
  const org = await runCli(['org', 'create', '--name', `Chaos firm ${n}`, '--slug', `chaos-${n}`], env);
  await runCli(['receptionist', 'publish', '--org', org.id, '--file', join(dir, 'settings.json')], env);
  rmSync(dir, { recursive: true, force: true });
  const key = async (name, set) => {
    const k = await runCli(['key', 'create', '--org', org.id, '--name', name, '--set', set], env);
    return { id: k.id, key: k.key };
  };
  const endpoint = async (suffix, types) => {
    const tag = `f${n}-${suffix}`;
    const e = await runCli(['endpoint', 'create', '--org', org.id, '--url', receivers.urlFor(tag), '--types', types], env);
    receivers.setSecret(tag, e.secret);
    return { id: e.id, tag, types: types.split(',') };
  };
  // Independent of each other: run together (each CLI run boots the app, seconds on a busy machine).
  const [reader, writerA, writerB, ...endpoints] = await Promise.all([
    key('reader', 'read'),
    key('writer a', 'read-update-leads'),
    key('writer b', 'read-update-leads'),
    endpoint('all', ALL_TYPES),
    endpoint('leads', 'lead.created,lead.updated'),
  ]);
  const writers = [writerA, writerB];
  return { n, orgId: org.id, reader, writers, endpoints, calls: [], unsure: [], leads: [], recorded: [], uploaded: new Set(), seq: 0 };
}
