/**
 * The call detail's two statements timed on their own, at both sizes, without the service around them: the read
 * (the key's standing joined to the call, `CallsRepository.findDetailWithStanding`) and the group-committed audit
 * row it waits for (`AuditRepository.insertReadRows`), each through the service's own compiled repository, as the
 * same named prepared statements, on one connection per size, 1x and 10x alternating. If the request's 10x/1x ratio
 * shows here too, the database is where it comes from; if not, the process around it. `--explain` runs it.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { pgQueryable } from './pg-queryable.mjs';
import { latencyStats } from './quantiles.mjs';

const require = createRequire(import.meta.url);
const dist = (p) => fileURLToPath(new URL(`../dist/src/${p}`, import.meta.url));

/** The service's Queryable on one client, timing each statement (ms into `into`). */
function timedSql(client, into) {
  return pgQueryable(client, async (config, run) => {
    const t0 = performance.now();
    const r = await run(config);
    into.push(performance.now() - t0);
    return r;
  });
}

/** The newest key of the large firm (the one the requests use). */
async function keyIdOf(ctx) {
  const { rows } = await ctx.client.query(`SELECT id FROM api_keys WHERE org_id = $1 ORDER BY created_at DESC LIMIT 1`, [ctx.largeId]);
  return rows[0].id;
}

/**
 * p50/p99 ms of each statement at each size over `n` executions (after 20 of each as warm-up), and
 * EXPLAIN (ANALYZE, BUFFERS) of the read at each size.
 */
export async function detailStatements(ctxs, targets, n) {
  const { CallsRepository } = require(dist('calls/calls.repository.js'));
  const { AuditRepository } = require(dist('audit/audit.repository.js'));
  const sides = await Promise.all(
    ctxs.map(async (ctx, k) => {
      const read = [];
      const audit = [];
      return {
        ctx,
        callIds: targets[k].callIds,
        caller: { keyId: await keyIdOf(ctx), orgId: ctx.largeId, livemode: true },
        read,
        audit,
        calls: new CallsRepository(),
        audits: new AuditRepository(undefined, timedSql(ctx.client, audit)),
        sql: timedSql(ctx.client, read),
      };
    }),
  );
  const once = async (side, i) => {
    const id = side.callIds[i % side.callIds.length];
    const { row } = await side.calls.findDetailWithStanding(side.sql, side.caller, id);
    if (row?.callId !== id) throw new Error(`detail statement found no call ${id}`);
    await side.audits.insertReadRows([
      {
        org_id: side.caller.orgId,
        key_id: side.caller.keyId,
        action: 'calls.read',
        resource_type: 'call',
        resource_ids: [id],
        details: null,
      },
    ]);
  };
  for (const side of sides) for (let i = 0; i < 20; i++) await once(side, i);
  for (const side of sides) side.read.length = side.audit.length = 0;
  const rounds = 10;
  for (let r = 0; r < rounds; r++)
    for (const k of r % 2 === 0 ? [0, 1] : [1, 0]) for (let i = 0; i < Math.ceil(n / rounds); i++) await once(sides[k], r * n + i);
  const explains = [];
  for (const side of sides) {
    // The statement as the service runs it: the plan its connection settled on after many executions.
    const lit = (v) => side.ctx.client.escapeLiteral(String(v));
    const { rows } = await side.ctx.client.query(
      `EXPLAIN (ANALYZE, BUFFERS) EXECUTE call_detail_with_standing(${lit(side.caller.keyId)}, ${lit(side.caller.orgId)}, ${lit(side.callIds[0])}, true)`,
    );
    explains.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
  }
  return {
    read: sides.map((s) => latencyStats(s.read)),
    audit: sides.map((s) => latencyStats(s.audit)),
    explains,
  };
}
