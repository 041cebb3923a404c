// One firm's bursts, sent by a process of its own so its work is not timed with the reads (bench/burst-fairness.bench.mjs):
// `waves` times, every request of every group at once (a connection each), then the next wave once all are answered.
// argv[2]: { baseUrl, waves, groups: [{ method, paths: [...], keys: [...], body?, count }] }: the i-th request of a
// group goes to paths[i % paths.length] with keys[i % keys.length]; `{n}` in a body becomes the request's number.
// stdout: one JSON object { statuses: { <status>: <count> }, waves, seconds }.
const plan = JSON.parse(process.argv[2]);
const statuses = {};
let sent = 0;
const started = performance.now();

async function send(group, i) {
  const text = group.body === undefined ? undefined : JSON.stringify(group.body).replaceAll('{n}', String(++sent));
  try {
    const res = await fetch(new URL(group.paths[i % group.paths.length], plan.baseUrl), {
      method: group.method,
      headers: {
        authorization: `Bearer ${group.keys[i % group.keys.length]}`,
        ...(text === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: text,
    });
    await res.arrayBuffer();
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  } catch {
    statuses.failed = (statuses.failed ?? 0) + 1;
  }
}

for (let wave = 0; wave < plan.waves; wave++) {
  await Promise.all(plan.groups.flatMap((group) => Array.from({ length: group.count }, (_, i) => send(group, i))));
}
process.stdout.write(JSON.stringify({ statuses, waves: plan.waves, seconds: (performance.now() - started) / 1000 }));
