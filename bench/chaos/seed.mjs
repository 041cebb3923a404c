const ALL_TYPES = 'call.completed,lead.created,lead.updated';
const dist = (path) => import(new URL(`../../dist/src/${path}`, import.meta.url).href);

/**
 * One firm through the CLI's commands: published settings, a read key and two read-update-leads keys (two
 * clients that race on PATCH), and two webhook endpoints on the receivers (one for every type, one for leads only).
 */
export async function seedFirm(n, cli, receivers) {
  const { DEMO_SETTINGS } = await dist('demo/index.js');
  const org = await cli.run(['org', 'create', '--name', `Chaos firm ${n}`, '--slug', `chaos-${n}`]);
  await cli.run(['receptionist', 'publish', '--org', org.id, '--file', '-'], JSON.stringify(DEMO_SETTINGS));
  const key = async (name, set) => {
    const k = await cli.run(['key', 'create', '--org', org.id, '--name', name, '--set', set]);
    return { id: k.id, key: k.key };
  };
  const endpoint = async (suffix, types) => {
    const tag = `f${n}-${suffix}`;
    const e = await cli.run(['endpoint', 'create', '--org', org.id, '--url', receivers.urlFor(tag), '--types', types]);
    receivers.setSecret(tag, e.secret);
    return { id: e.id, tag, types: types.split(',') };
  };
  const reader = await key('reader', 'read');
  const writers = [await key('writer a', 'read-update-leads'), await key('writer b', 'read-update-leads')];
  const endpoints = [await endpoint('all', ALL_TYPES), await endpoint('leads', 'lead.created,lead.updated')];
  return { n, orgId: org.id, reader, writers, endpoints, calls: [], unsure: [], leads: [], recorded: [], uploaded: new Set(), seq: 0 };
}
