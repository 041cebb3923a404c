/**
 * When the chaos run stops: at CHAOS_DURATION, or earlier once every goal of CHAOS_UNTIL has been
 * observed ("api_kills=2,worker_kills=2,outages=2,disables=3,requests=1500"). A run chosen by goals
 * has seen each fault as often as it asks, however busy the machine; a run of fixed seconds sees
 * fewer faults when the machine is slow and wastes seconds when it is quick. The duration stays the
 * cap: a run that reaches it first reports its goals unmet (and the test that asked for them fails).
 */
import { AFTER_OUTAGE_MS } from './check-answers.mjs';

const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Requests sent once the service should have recovered from every outage so far (after the last one's
 * allowance for 503s, none under way): the checker judges each of them strictly, so they prove recovery.
 */
function recoveredRequests({ fleet, http }) {
  if (fleet.outages.length === 0 || fleet.outages.some((o) => o.upAt === undefined)) return 0;
  const recoveredAt = Math.max(...fleet.outages.map((o) => o.upAt)) + AFTER_OUTAGE_MS;
  return http.answers.filter((a) => a.t0 > recoveredAt).length;
}

/** The goals CHAOS_UNTIL may name: each a count of things the run did, read from the fleet and the client. */
export const GOAL_COUNTS = {
  /** SIGKILLs of an api process (a new one started each time). */
  api_kills: ({ fleet }) => fleet.kills.filter((k) => k.role === 'api').length,
  worker_kills: ({ fleet }) => fleet.kills.filter((k) => k.role === 'worker').length,
  /** PostgreSQL outages that ended (stopped, then serving again). */
  outages: ({ fleet }) => fleet.outages.filter((o) => o.upAt !== undefined).length,
  /** Endpoint disables whose enable has returned (the whole off window is in the timeline). */
  disables: ({ fleet }) => fleet.toggles.filter((t) => t.enableEnd !== undefined).length,
  /** Requests answered or lost, each judged by the checker. */
  requests: ({ http }) => http.answers.length,
  recovered_requests: recoveredRequests,
};

/** CHAOS_UNTIL: "name=count,..." of GOAL_COUNTS' names; empty for a run of CHAOS_DURATION. */
export function parseGoals(raw) {
  const goals = {};
  for (const part of (raw ?? '').split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const m = /^([a-z_]+)=(\d+)$/.exec(part);
    if (!m || !(m[1] in GOAL_COUNTS))
      throw new Error(`CHAOS_UNTIL must be name=count pairs of ${Object.keys(GOAL_COUNTS).join(', ')}, not "${part}"`);
    goals[m[1]] = Number(m[2]);
  }
  return goals;
}

export class RunLength {
  /** `sources` ({ fleet, http }) are what the goals are counted from. */
  constructor(durationS, goals, sources) {
    this.startedAt = Date.now();
    this.capAt = this.startedAt + durationS * 1000;
    this.goals = goals;
    this.sources = sources;
    this.endedAt = undefined;
    this.endedBy = undefined;
    this.checkedAt = 0;
  }

  /** Each goal's count so far. */
  observed() {
    return Object.fromEntries(Object.keys(this.goals).map((name) => [name, GOAL_COUNTS[name](this.sources)]));
  }

  goalsMet() {
    const seen = this.observed();
    return Object.keys(this.goals).length > 0 && Object.entries(this.goals).every(([name, n]) => seen[name] >= n);
  }

  /**
   * Whether the run still wants more of a fault (a goal's name): until its goal is met, or while the run lasts when it
   * has none. A fault kind is not repeated past its goal, so the goal for recovered requests can be met after the
   * last outage.
   */
  wants(name) {
    if (this.over()) return false;
    return !(name in this.goals) || GOAL_COUNTS[name](this.sources) < this.goals[name];
  }

  /** True from the moment the cap passes or every goal is met (and stays true). */
  over() {
    // Goals are counted at most every 100 ms: the traffic's loops ask before each request.
    if (this.endedAt === undefined && Date.now() - this.checkedAt >= 100) {
      this.checkedAt = Date.now();
      if (this.goalsMet()) this.endedBy = 'goals';
      else if (Date.now() >= this.capAt) this.endedBy = 'duration';
      if (this.endedBy) this.endedAt = Date.now();
    }
    return this.endedAt !== undefined;
  }

  /** Whether a step that would end at `t` (epoch ms) fits: the run is not over and the cap is later. */
  lastsPast(t) {
    return !this.over() && t < this.capAt;
  }

  /** Waits `ms`, or less when the run ends meanwhile (looked at every quarter second). */
  async pause(ms) {
    const until = Date.now() + ms;
    while (!this.over() && Date.now() < until) await pause(Math.min(250, until - Date.now()));
  }

  /** For the result: what was asked, what was seen by the end, and what ended the run ('goals' or 'duration'). */
  report() {
    return { until: this.goals, observed: this.observed(), ended_by: this.endedBy };
  }
}
