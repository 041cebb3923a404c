#!/usr/bin/env node
/**
 * What tracing costs when it is off (no OTEL_EXPORTER_OTLP_ENDPOINT): the only work left on the hot path.
 * No SDK object exists, no Fastify hook is registered and pg's client is not wrapped; what remains is the
 * access line's lookup of a request span (a symbol read), the outbox's `Tracing.OFF.inSpan` (a call through
 * to the function) and the dispatcher's `enabled` check. Each is timed against the code without it.
 *
 *   npm run build && node bench/tracing-off.bench.mjs
 *
 * BENCH_ITERATIONS (default 5,000,000) per measurement; the best of 5 rounds is reported, in ns per call.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { requestSpanIds } = require('../dist/src/common/tracing/http-spans.js');
const { Tracing, traceparentOf } = require('../dist/src/common/tracing/tracing.js');
const { parseTraceparent } = require('../dist/src/common/logging/trace-context.js');

const N = Number(process.env.BENCH_ITERATIONS ?? 5_000_000);
const req = {
  id: 'r1',
  method: 'GET',
  url: '/v1/calls',
  headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
};

function best(fn) {
  let min = Infinity;
  for (let round = 0; round < 5; round++) {
    const t0 = process.hrtime.bigint();
    fn();
    min = Math.min(min, Number(process.hrtime.bigint() - t0) / N);
  }
  return min;
}

async function bestAsync(fn) {
  let min = Infinity;
  for (let round = 0; round < 5; round++) {
    const t0 = process.hrtime.bigint();
    await fn();
    min = Math.min(min, Number(process.hrtime.bigint() - t0) / N);
  }
  return min;
}

let sink = 0;
const logBefore = best(() => {
  for (let i = 0; i < N; i++) sink += parseTraceparent(req.headers.traceparent) ? 1 : 0;
});
const logAfter = best(() => {
  for (let i = 0; i < N; i++) sink += (requestSpanIds(req) ?? parseTraceparent(req.headers.traceparent)) ? 1 : 0;
});
const work = async () => 1;
const recordBefore = await bestAsync(async () => {
  for (let i = 0; i < N; i++) sink += await work();
});
const recordAfter = await bestAsync(async () => {
  for (let i = 0; i < N; i++)
    sink += await Tracing.OFF.inSpan('outbox record lead.updated', {}, async (span) => (traceparentOf(span) ? 0 : work()));
});

const row = (what, before, after) => `| ${what} | ${before.toFixed(1)} | ${after.toFixed(1)} | ${(after - before).toFixed(1)} |`;
process.stdout.write(
  [
    `Tracing off, ${N.toLocaleString('en-US')} calls per measurement, best of 5 rounds (ns per call), sink ${sink > 0 ? 'used' : 'unused'}:`,
    '',
    '| path | without tracing code | with tracing off | added |',
    '| --- | ---: | ---: | ---: |',
    row('access line: trace ids of a request', logBefore, logAfter),
    row('outbox record: span wrapper (awaited)', recordBefore, recordAfter),
    '',
  ].join('\n'),
);
