#!/usr/bin/env node
/**
 * What the console's Fastify plugins cost a request that is not the console's (an API route): CPU per request of a
 * bare Fastify server answering a small JSON route, against the same server with @fastify/cookie (no hook),
 * @fastify/formbody, @fastify/helmet (global: false) and @fastify/csrf-protection registered as the console registers
 * them (src/console/console-http.ts). Each server is a process of its own; autocannon loads them in alternating rounds
 * and each reports its own process.cpuUsage(). Prints one JSON line: medians, the difference, the ratio, the load.
 *
 *   node bench/console-plugins-overhead.mjs        # AMOUNT=20000 requests a round, ROUNDS=8; ONLY=helmet for one plugin
 *
 * A one-off measurement (docs/benchmarks.md, "The console's plugins on the API's path"), not run by npm test.
 */
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

async function serve(withPlugins) {
  const f = require('fastify')({ logger: false });
  if (withPlugins) {
    const only = process.env.ONLY;
    const use = (name) => only === undefined || only === name;
    f.decorateRequest('session', null);
    if (use('cookie')) await f.register(require('@fastify/cookie'), { hook: false });
    if (use('formbody')) await f.register(require('@fastify/formbody'), { parser: (s) => Object.fromEntries(new URLSearchParams(s)) });
    if (use('helmet')) await f.register(require('@fastify/helmet'), { global: false });
    if (use('csrf')) await f.register(require('@fastify/csrf-protection'), { sessionPlugin: '@fastify/session', sessionKey: 'csrfSecret' });
  }
  f.get('/v1/calls', async () => ({ calls: [], has_more: false }));
  f.get('/cpu', async () => process.cpuUsage());
  await f.listen({ port: 0, host: '127.0.0.1' });
  process.send(f.server.address().port);
}

async function measure() {
  const autocannon = require('autocannon');
  const start = (kind) =>
    new Promise((resolve) => {
      const child = fork(fileURLToPath(import.meta.url), ['serve', kind]);
      child.once('message', (port) => resolve({ child, port }));
    });
  const servers = { bare: await start('bare'), plugins: await start('plugins') };
  const cpu = async (port) => {
    const u = await (await fetch(`http://127.0.0.1:${port}/cpu`)).json();
    return u.user + u.system;
  };
  const amount = Number(process.env.AMOUNT ?? 20000);
  const round = async (kind) => {
    const { port } = servers[kind];
    const before = await cpu(port);
    const r = await autocannon({ url: `http://127.0.0.1:${port}/v1/calls`, connections: 10, amount });
    return ((await cpu(port)) - before) / r.requests.total;
  };
  for (const kind of ['bare', 'plugins']) await round(kind); // warm-up
  const per = { bare: [], plugins: [] };
  const rounds = Number(process.env.ROUNDS ?? 8);
  const load = [loadavg()[0]];
  for (let i = 0; i < rounds; i++) for (const kind of i % 2 ? ['plugins', 'bare'] : ['bare', 'plugins']) per[kind].push(await round(kind));
  load.push(loadavg()[0]);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const [bare, plugins] = [median(per.bare), median(per.plugins)];
  const out = { only: process.env.ONLY ?? 'all', amount, rounds, load1: load, bare_us: +bare.toFixed(1), plugins_us: +plugins.toFixed(1) };
  console.log(JSON.stringify({ ...out, added_us: +(plugins - bare).toFixed(1), ratio: +(plugins / bare).toFixed(3) }));
  for (const { child } of Object.values(servers)) child.kill();
}

if (process.argv[2] === 'serve') await serve(process.argv[3] === 'plugins');
else await measure();
