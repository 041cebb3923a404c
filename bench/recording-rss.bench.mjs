#!/usr/bin/env node
/**
 * Memory of the service while a 256 MiB recording moves through it, on each
 * recording store.
 *
 *   npm run bench:recording-rss
 *
 * For each store (fs: files under DATA_DIR; s3: an s3rver in this process,
 * so its memory is not the service's), a real `api` process
 * (`node dist/src/main.js`, ROLE=api) is started, warmed up with one small
 * recording, and then: a 256 MiB Ogg-looking body is uploaded through the
 * internal PUT (chunked, with backpressure, generated on the fly), streamed
 * back whole through GET /v1/calls/{id}/recording (counted and hashed, kept
 * nowhere), and an 8 MiB range from the middle is fetched. The service's RSS
 * is read from /proc/<pid>/status every 20 ms; the figure is the peak RSS
 * during each transfer minus the RSS before it (target: under 64 MiB).
 *
 * Environment (optional): BENCH_DATABASE_URL (a PostgreSQL server; default an
 * embedded one in a temp folder), BENCH_STORES (fs,s3), BENCH_MIB (256),
 * BENCH_RESULTS_DIR (bench/results).
 * Results: printed, and written to BENCH_RESULTS_DIR/recording-rss-<time>.json.
 * `npm test` runs it once with a small recording (test/benches.e2e.spec.ts), so it keeps running.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { benchDatabase } from './bench-database.mjs';
import { s3rverEnv, startApi } from './service-process.mjs';

const require = createRequire(import.meta.url);
const dist = (p) => fileURLToPath(new URL(`../dist/src/${p}`, import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));
const SECRET = Buffer.alloc(32, 7).toString('base64');
const INTERNAL_TOKEN = `bench-internal-${randomBytes(12).toString('hex')}`;
const MiB = 1024 * 1024;
const SIZE_MIB = Number(process.env.BENCH_MIB ?? 256);
const STORES = (process.env.BENCH_STORES ?? 'fs,s3').split(',');
/** The range fetched from the middle: 8 MiB, or a quarter of a recording smaller than 32 MiB (a quick run's). */
const RANGE = Math.min(8 * MiB, Math.floor((SIZE_MIB * MiB) / 4));
const log = (line) => process.stderr.write(line + '\n');
const mib = (bytes) => Math.round((bytes / MiB) * 10) / 10;

/** An Ogg-looking body of `mib` MiB: "OggS", then 1 MiB blocks that differ from each other; hashed as it goes. */
function oggBody(sizeMib, hash) {
  const block = randomBytes(MiB);
  let i = 0;
  return Readable.from(
    (function* () {
      for (; i < sizeMib; i++) {
        const chunk = Buffer.from(block);
        if (i === 0) chunk.write('OggS', 0, 'latin1');
        chunk.writeUInt32BE(i, 8);
        hash?.update(chunk);
        yield chunk;
      }
    })(),
  );
}

/** Peak VmRSS of a process over a span, sampled every 20 ms. */
function rssMeter(pid) {
  const read = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
  const start = read();
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, read())), 20);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, read());
      return { start_mib: mib(start), peak_mib: mib(peak), growth_mib: mib(peak - start) };
    },
  };
}

async function upload(baseUrl, orgId, callId, body) {
  const req = request(new URL(`/internal/v1/orgs/${orgId}/calls/${callId}/recording`, baseUrl), {
    method: 'PUT',
    headers: { authorization: `Bearer ${INTERNAL_TOKEN}`, 'content-type': 'audio/ogg' },
  });
  const response = once(req, 'response');
  await pipeline(body, req);
  const [res] = await response;
  let text = '';
  for await (const chunk of res) text += chunk;
  if (res.statusCode !== 200) throw new Error(`upload answered ${res.statusCode}: ${text}`);
  return JSON.parse(text);
}

/** GET, draining with backpressure: bytes and SHA-256, nothing kept. */
async function download(baseUrl, path, key, headers = {}) {
  const req = request(new URL(path, baseUrl), { headers: { authorization: `Bearer ${key}`, ...headers } });
  req.end();
  const [res] = await once(req, 'response');
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of res) {
    bytes += chunk.length;
    hash.update(chunk);
  }
  return { status: res.statusCode, bytes, sha256: hash.digest('hex') };
}

async function startS3() {
  const { default: S3rver } = await import('s3rver');
  const dir = mkdtempSync(join(tmpdir(), 'bench-s3rver-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [{ name: 'recordings' }] });
  const { port } = await server.run();
  return {
    env: s3rverEnv(port),
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function runStore(store, ctx) {
  const s3 = store === 's3' ? await startS3() : null;
  const dataDir = mkdtempSync(join(tmpdir(), `bench-recordings-${store}-`));
  const api = await startApi({
    DATABASE_URL: ctx.databaseUrl,
    WEBHOOK_SECRET_KEY: SECRET,
    INTERNAL_API_TOKEN: INTERNAL_TOKEN,
    LOG_LEVEL: 'warn',
    BASE_URL: 'http://bench.local',
    DATA_DIR: dataDir,
    ...(s3?.env ?? {}),
  });
  try {
    const callId = `call_rss_${store}`;
    await ctx.sql(`INSERT INTO calls (org_id, call_id, started_at) VALUES ($1, $2, now())`, [ctx.orgId, callId]);
    // Warm-up: every code path (and, for s3, the SDK) loaded before the measure.
    await upload(api.baseUrl, ctx.orgId, callId, oggBody(6));
    await download(api.baseUrl, `/v1/calls/${callId}/recording`, ctx.key);

    const sent = createHash('sha256');
    let meter = rssMeter(api.child.pid);
    const stored = await upload(api.baseUrl, ctx.orgId, callId, oggBody(SIZE_MIB, sent));
    const uploadRss = meter.stop();
    const sentSha = sent.digest('hex');
    if (stored.sha256 !== sentSha || stored.size_bytes !== SIZE_MIB * MiB) throw new Error('the stored recording differs from the upload');

    meter = rssMeter(api.child.pid);
    const whole = await download(api.baseUrl, `/v1/calls/${callId}/recording`, ctx.key);
    const downloadRss = meter.stop();
    if (whole.status !== 200 || whole.sha256 !== sentSha) throw new Error(`download: ${whole.status}, ${whole.bytes} bytes, hash differs`);

    const start = Math.floor((SIZE_MIB / 2) * MiB) - 10;
    meter = rssMeter(api.child.pid);
    const part = await download(api.baseUrl, `/v1/calls/${callId}/recording`, ctx.key, { range: `bytes=${start}-${start + RANGE - 1}` });
    const rangeRss = meter.stop();
    if (part.status !== 206 || part.bytes !== RANGE) throw new Error(`range: ${part.status}, ${part.bytes} bytes`);
    // The whole run against the RSS before the upload: what a 256 MiB recording cost the process overall.
    const overall = mib(Math.max(uploadRss.peak_mib, downloadRss.peak_mib, rangeRss.peak_mib) * MiB - uploadRss.start_mib * MiB);
    return { store, size_mib: SIZE_MIB, upload: uploadRss, download: downloadRss, range_8mib: rangeRss, overall_growth_mib: overall };
  } finally {
    api.child.kill('SIGTERM');
    await once(api.child, 'exit');
    await s3?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const { default: pg } = await import('pg');
  require('reflect-metadata');
  // A database: BENCH_DATABASE_URL's server, or an embedded one.
  const { databaseUrl, stop: stopPg } = await benchDatabase('bench-rss');
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
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
    const org = await setup.get(AccountService).createOrg({ name: 'Bench Firm', slug: 'bench-rss' });
    const { key } = await setup.get(ApiKeyService).create({ orgId: org.id, name: 'bench', set: 'read' });
    await setup.close();
    const ctx = { databaseUrl, orgId: org.id, key, sql: (text, params) => pool.query(text, params) };
    const results = [];
    for (const store of STORES) {
      log(`${store}: ${SIZE_MIB} MiB up, whole down, 8 MiB range...`);
      results.push(await runStore(store, ctx));
      log(JSON.stringify(results.at(-1)));
    }
    const report = { at: new Date().toISOString(), node: process.version, cpus: cpus().length, loadavg: loadavg(), results };
    const resultsDir = process.env.BENCH_RESULTS_DIR ?? join(root, 'bench/results');
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, `recording-rss-${report.at.replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2));
    console.log(
      '| store | upload RSS growth MiB | download RSS growth MiB | 8 MiB range RSS growth MiB | overall growth MiB | RSS before MiB |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const r of results) {
      console.log(
        `| ${r.store} | ${r.upload.growth_mib} | ${r.download.growth_mib} | ${r.range_8mib.growth_mib} | ${r.overall_growth_mib} | ${r.upload.start_mib} |`,
      );
    }
  } finally {
    await pool.end();
    await stopPg();
  }
}

await main();
