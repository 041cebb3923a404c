#!/usr/bin/env node
/**
 * Body refusal under attack: a real `api` process (`node dist/src/main.js`,
 * ROLE=api, 127.0.0.1 only) receives 8 MiB deeply nested JSON bodies
 * (`'['.repeat(4 Mi) + ']'.repeat(4 Mi)`) at 8 a second while GET /v1/health
 * is timed every 25 ms and the process's RSS is sampled every 20 ms.
 *
 *   npm run build && node bench/body-attack.bench.mjs
 *
 * Scenarios (each BENCH_SECONDS, default 10; half the bodies with
 * Content-Length, half chunked):
 * - scoped: PATCH /v1/leads/{id} with a key holding leads:write (16 KiB limit: 413);
 * - weakest: the same PATCH with a read-no-transcripts key (403 before the body),
 *   and POST .../redeliver with it (a route that takes no body: 413);
 * - internal: PUT of a call document with the internal token (8 MiB limit:
 *   reading stops at the first chunk nested too deep, 400, before any parse).
 * An answer of 0 is a connection the server closed (reset) while the client
 * was still sending the body it refused.
 * Environment (optional): BENCH_DATABASE_URL, BENCH_SECONDS, BENCH_PER_SECOND (8).
 * Results: printed as a Markdown table. Not part of `npm test`.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchDatabase } from './bench-database.mjs';
import { startApi } from './service-process.mjs';

const require = createRequire(import.meta.url);
const dist = (p) => fileURLToPath(new URL(`../dist/src/${p}`, import.meta.url));
const SECRET = Buffer.alloc(32, 7).toString('base64');
const INTERNAL_TOKEN = 'bench-internal-token-0123456789';
const MiB = 1024 * 1024;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PER_SECOND = Number(process.env.BENCH_PER_SECOND ?? 8);
const DEEP = Buffer.concat([Buffer.alloc(4 * MiB, '['), Buffer.alloc(4 * MiB, ']')]);
const log = (line) => process.stderr.write(line + '\n');
const round = (n) => Math.round(n * 10) / 10;

function rssOf(pid) {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
}

/** One deep body to 127.0.0.1; resolves with the status once the server answered and closed. */
function sendDeep(port, method, target, auth, chunked) {
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => {
      const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${DEEP.length}`;
      socket.write(
        `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`,
      );
      if (chunked) socket.write(`${DEEP.length.toString(16)}\r\n`);
      socket.write(DEEP);
      if (chunked) socket.write('\r\n0\r\n\r\n');
    });
    socket.setTimeout(60_000, () => socket.destroy());
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
  });
}

const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)];

async function scenario(api, name, method, target, auth) {
  const port = Number(new URL(api.baseUrl).port);
  await Promise.all([sendDeep(port, method, target, auth, false), sendDeep(port, method, target, auth, true)]);
  const before = rssOf(api.child.pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(api.child.pid))), 20);
  const latencies = [];
  let stop = false;
  const probe = (async () => {
    while (!stop) {
      const started = performance.now();
      await (await fetch(`${api.baseUrl}/v1/health`)).arrayBuffer();
      latencies.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  const statuses = {};
  const sends = [];
  for (let i = 0; i < SECONDS * PER_SECOND; i++) {
    sends.push(sendDeep(port, method, target, auth, i % 2 === 1).then((s) => (statuses[s] = (statuses[s] ?? 0) + 1)));
    await new Promise((r) => setTimeout(r, 1000 / PER_SECOND));
  }
  await Promise.all(sends);
  stop = true;
  await probe;
  clearInterval(sampler);
  return {
    name,
    requests: SECONDS * PER_SECOND,
    statuses,
    health_p50_ms: round(percentile(latencies, 50)),
    health_p99_ms: round(percentile(latencies, 99)),
    health_max_ms: round(Math.max(...latencies)),
    rss_before_mib: round(before / MiB),
    rss_growth_mib: round((peak - before) / MiB),
  };
}

async function main() {
  require('reflect-metadata');
  const { databaseUrl, stop: stopPg } = await benchDatabase('bench-body-attack');
  try {
    const { runMigrations } = require(dist('database/migrate.js'));
    await runMigrations(databaseUrl);
    const { loadConfig } = require(dist('config/app-config.js'));
    const { createApp } = require(dist('create-app.js'));
    const { AccountService } = require(dist('account/index.js'));
    const { ApiKeyService } = require(dist('auth/index.js'));
    const setup = await createApp({
      config: loadConfig({ DATABASE_URL: databaseUrl, WEBHOOK_SECRET_KEY: SECRET, LOG_LEVEL: 'silent', PORT: '0', ROLE: 'api' }),
      databaseUrl,
    });
    await setup.init();
    const org = await setup.get(AccountService).createOrg({ name: 'Bench Firm', slug: `bench-attack-${Date.now()}` });
    const keys = setup.get(ApiKeyService);
    const writer = (await keys.create({ orgId: org.id, name: 'bench writer', set: 'read-update-leads' })).key;
    const weakest = (await keys.create({ orgId: org.id, name: 'bench weakest', set: 'read-no-transcripts' })).key;
    await setup.close();
    const api = await startApi({
      DATABASE_URL: databaseUrl,
      WEBHOOK_SECRET_KEY: SECRET,
      INTERNAL_API_TOKEN: INTERNAL_TOKEN,
      LOG_LEVEL: 'warn',
    });
    const load = { before: loadavg() };
    const results = [];
    try {
      for (const [name, method, target, auth] of [
        ['scoped key, PATCH lead (16 KiB limit)', 'PATCH', '/v1/leads/lead_bench', `Bearer ${writer}`],
        ['weakest key, PATCH lead (lacks leads:write)', 'PATCH', '/v1/leads/lead_bench', `Bearer ${weakest}`],
        [
          'weakest key, POST redeliver (takes no body)',
          'POST',
          '/v1/webhook-deliveries/00000000-0000-4000-8000-000000000000/redeliver',
          `Bearer ${weakest}`,
        ],
        [
          'internal token, PUT call document (8 MiB limit)',
          'PUT',
          `/internal/v1/orgs/${org.id}/calls/call_bench`,
          `Bearer ${INTERNAL_TOKEN}`,
        ],
      ]) {
        log(`${name}: ${PER_SECOND}/s for ${SECONDS} s...`);
        results.push(await scenario(api, name, method, target, auth));
        log(JSON.stringify(results.at(-1)));
      }
    } finally {
      api.child.kill('SIGTERM');
      await once(api.child, 'exit');
    }
    load.after = loadavg();
    console.log(
      `node ${process.version}, ${cpus().length} cores, load average before ${load.before.map(round).join(' ')}, after ${load.after.map(round).join(' ')}`,
    );
    console.log('| scenario | requests | answers | health p50 ms | health p99 ms | health max ms | RSS before MiB | RSS growth MiB |');
    console.log('| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |');
    for (const r of results) {
      const answers = Object.entries(r.statuses)
        .map(([s, n]) => `${n}× ${s}`)
        .join(', ');
      console.log(
        `| ${r.name} | ${r.requests} | ${answers} | ${r.health_p50_ms} | ${r.health_p99_ms} | ${r.health_max_ms} | ${r.rss_before_mib} | ${r.rss_growth_mib} |`,
      );
    }
  } finally {
    await stopPg();
  }
}

await main();
