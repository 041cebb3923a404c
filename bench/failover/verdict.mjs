/**
 * What one failover scenario did, read from the database the run ended on (the truth) against what the clients
 * were told and given: each figure, and the rules that must hold whatever the scenario (no 500, 503 with
 * Retry-After, no process exit, no reader skipping an event the database has, the as_of poller missing nothing,
 * every event delivered), plus the ones its scenario asks (nothing acknowledged lost; nothing given that was lost).
 */
export async function judge({ scenario, db, firm, answers, readers, poller, receipts, ledger, processes, switchedAt, judgedUntil, rules }) {
  const events = (await db.sql(`SELECT id FROM events WHERE org_id = $1 AND livemode ORDER BY history, txid, seq`, [firm.orgId])).map(
    (r) => r.id,
  );
  const kept = new Set(events);
  const calls = new Map(
    (await db.sql(`SELECT call_id, updated_at FROM calls WHERE org_id = $1 AND livemode`, [firm.orgId])).map((r) => [
      r.call_id,
      r.updated_at,
    ]),
  );
  const leads = new Map(
    (await db.sql(`SELECT lead_id, updated_at FROM leads WHERE org_id = $1 AND livemode`, [firm.orgId])).map((r) => [
      r.lead_id,
      r.updated_at,
    ]),
  );
  const pendingDeliveries = (
    await db.sql(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE org_id = $1 AND status = 'pending'`, [firm.orgId])
  )[0].n;
  const received = new Set(receipts.map((r) => r.id));

  const figures = {
    events: events.length,
    acknowledged_calls: ledger.calls.length,
    acknowledged_lead_changes: ledger.patches.length,
    acknowledged_lost: {
      calls: ledger.calls.filter((id) => !calls.has(id)).length,
      lead_changes: ledger.patches.filter((p) => !leads.has(p.leadId) || leads.get(p.leadId).getTime() < Date.parse(p.updatedAt)).length,
    },
    readers: readers.map((r) => ({
      name: r.name,
      received: r.got.size,
      skipped: events.filter((id) => !r.got.has(id)).length,
      given_lost: [...r.got].filter((id) => !kept.has(id)).length,
      after_lost: r.afterLost.length,
      unexpected_answers: r.unexpected.length,
    })),
    deliveries: {
      received: received.size,
      given_lost: [...received].filter((id) => !kept.has(id)).length,
      undelivered: events.filter((id) => !received.has(id)).length,
      pending: pendingDeliveries,
      first_after_switch_ms: firstAfter(
        receipts.map((r) => r.at),
        switchedAt,
      ),
    },
    poller_missed: [...calls.keys()].filter((id) => !poller.mirror.has(id)).length,
    answers: summarise(answers, switchedAt, judgedUntil),
    processes_exited: processes.filter((p) => p.exited).map((p) => `${p.role} ${JSON.stringify(p.exited)}: ${p.output().slice(-1500)}`),
  };
  return { scenario, figures, violations: violations(figures, rules) };
}

function firstAfter(times, at) {
  const after = times.filter((t) => t >= at).sort((a, b) => a - b);
  return after.length ? after[0] - at : null;
}

function summarise(answers, switchedAt, judgedUntil) {
  // The stale scenario's return to the old primary, at the end, is judged on its own (every answer a 503 there).
  const unavailable = answers.all.filter((a) => a.status === 503 && a.at < judgedUntil);
  return {
    total: answers.all.length,
    server_errors: answers.all.filter((a) => a.status >= 500 && a.status !== 503).map((a) => `${a.op} ${a.status}`),
    unavailable: unavailable.length,
    unavailable_without_retry_after: unavailable.filter((a) => !a.retryAfter).length,
    unavailable_window_ms: unavailable.length ? { from: unavailable[0].at - switchedAt, to: unavailable.at(-1).at - switchedAt } : null,
    failed_requests: answers.failedRequests,
  };
}

/** The rules every scenario keeps, and the ones `rules` adds. */
function violations(f, rules) {
  const found = [];
  const must = (ok, what) => ok || found.push(what);
  must(f.answers.server_errors.length === 0, `answers 5xx other than 503: ${f.answers.server_errors.slice(0, 5).join(', ')}`);
  must(f.answers.unavailable_without_retry_after === 0, `503 answers without Retry-After: ${f.answers.unavailable_without_retry_after}`);
  must(f.processes_exited.length === 0, `processes exited: ${f.processes_exited.join('; ')}`);
  for (const r of f.readers) {
    must(r.skipped === 0, `reader ${r.name} skipped ${r.skipped} events the database has`);
    must(r.unexpected_answers === 0, `reader ${r.name} had ${r.unexpected_answers} answers outside the spec`);
  }
  must(f.poller_missed === 0, `the as_of poller missed ${f.poller_missed} calls`);
  must(f.deliveries.undelivered === 0, `${f.deliveries.undelivered} events never reached the receiver`);
  if (rules.nothingAcknowledgedLost) {
    must(
      f.acknowledged_lost.calls === 0 && f.acknowledged_lost.lead_changes === 0,
      `acknowledged writes lost: ${JSON.stringify(f.acknowledged_lost)}`,
    );
  }
  if (rules.nothingGivenLost) {
    for (const r of f.readers) must(r.given_lost === 0, `reader ${r.name} was given ${r.given_lost} events the promotion lost`);
    must(f.deliveries.given_lost === 0, `the receiver was sent ${f.deliveries.given_lost} events the promotion lost`);
  }
  if (rules.afterLostSeen) {
    must(
      f.readers.some((r) => r.after_lost > 0),
      'no reader stood on a lost event (the lost tail was not exercised)',
    );
  }
  return found;
}
