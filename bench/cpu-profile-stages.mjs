#!/usr/bin/env node
/**
 * A V8 CPU profile (`node --cpu-prof`, e.g. BENCH_CPU_PROF of calls-list.bench.mjs)
 * broken down by request stage: self time summed by where the code lives.
 *
 *   node bench/cpu-profile-stages.mjs [--requests N] <file.cpuprofile> [more files...]
 *
 * Prints one line per stage with its share of the busy (non-idle) time, and
 * with --requests (the bench prints how many each server served) µs per request.
 * Samples before the first request reached Fastify's route handler (start-up:
 * loading modules, building the app and its document) are left out. Code
 * that belongs to no stage (V8 built-ins such as JSON.stringify, Node's
 * crypto, timers) counts for the stage of the nearest caller that has one.
 */
import { readFileSync } from 'node:fs';

/** First match wins: [stage, test on "url function"]. */
const STAGES = [
  ['idle', (u, f) => f === '(idle)'],
  ['garbage collection', (u, f) => f === '(garbage collector)'],
  ['auth, guard, rate limit', (u) => /\/src\/auth\//.test(u)],
  ['validation pipe (class-validator, class-transformer)', (u) => /class-validator|class-transformer|\/src\/common\/validation\//.test(u)],
  ['metrics', (u) => /prom-client|\/src\/metrics\//.test(u)],
  ['logging (pino, access log)', (u) => /pino|\/src\/common\/logging\//.test(u)],
  ['ETag, compression, JSON answer', (u) => /entity-tags|compression|json-answer|zlib/.test(u)],
  ['request stages (src/common/http, errors)', (u) => /\/src\/common\/(http|errors)\//.test(u)],
  ['cursor, pagination', (u) => /\/src\/common\/pagination\//.test(u)],
  ['calls, leads: services, mappers', (u) => /\/src\/(calls|leads)\//.test(u)],
  ['audit writer', (u) => /\/src\/audit\//.test(u)],
  ['SQL: pg client and protocol', (u) => /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-)/.test(u)],
  ['SQL: Database, TypeORM', (u) => /typeorm|\/src\/database\//.test(u)],
  ['Nest (router, guards, pipes, interceptors)', (u) => /@nestjs|rxjs/.test(u)],
  ['Fastify (routing, hooks, reply, serialiser)', (u) => /fastify|find-my-way|avvio|light-my-request|fast-json-stringify|@fastify/.test(u)],
  ['Node HTTP and sockets', (u) => /^node:(_http|http|net|stream|internal\/(streams|http|net))|node:internal\/(stream|http|net)/.test(u)],
  ['other src', (u) => /\/src\//.test(u)],
  ['other node_modules', (u) => /node_modules/.test(u)],
];
const UNPLACED = 'V8 and Node, no caller of ours (program, timers, event loop)';

const args = process.argv.slice(2);
const requests = args[0] === '--requests' ? Number(args[1]) : 0;
const files = requests ? args.slice(2) : args;
const totals = new Map();
let busy = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const inRequest = (id) => {
    for (let at = id; at !== undefined; at = parentOf.get(at)) if (byId.get(at).callFrame.functionName === 'routeHandler') return true;
    return false;
  };
  const first = profile.samples.findIndex(inRequest);
  const self = new Map();
  for (let i = Math.max(0, first); i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
  }
  // Each node's stage: its own, or its caller's.
  const stageOf = new Map();
  const visit = (node, inherited) => {
    const { url, functionName } = node.callFrame;
    const own = STAGES.find(([, test]) => test(url, functionName))?.[0];
    const stage = own ?? inherited;
    stageOf.set(node.id, stage);
    for (const child of node.children ?? []) visit(byId.get(child), stage);
  };
  visit(profile.nodes[0], UNPLACED);
  for (const [id, us] of self) {
    const stage = stageOf.get(id);
    totals.set(stage, (totals.get(stage) ?? 0) + us);
    if (stage !== 'idle') busy += us;
  }
}
for (const [stage, us] of [...totals].sort((a, b) => b[1] - a[1])) {
  if (stage === 'idle') continue;
  const perRequest = requests ? ` ${(us / requests).toFixed(0)} µs |` : '';
  process.stdout.write(`| ${stage} | ${(us / 1e6).toFixed(2)} s | ${((100 * us) / busy).toFixed(1)} % |${perRequest}\n`);
}
const perRequest = requests ? ` ${(busy / requests).toFixed(0)} µs |` : '';
process.stdout.write(`| busy total | ${(busy / 1e6).toFixed(2)} s | 100 % |${perRequest}\n`);
