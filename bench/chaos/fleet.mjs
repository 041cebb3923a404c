import { rssMiB, startService } from './cluster.mjs';

const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const between = (lo, hi) => (lo + Math.random() * (hi - lo)) * 1000;

/**
 * The service processes and the faults done to them, with a timeline the checker reads:
 * kills {role, pid, at}, outages {stopStart, downAt, startAt, upAt}, toggles
 * {endpointId, disableStart, disableEnd, enableStart, enableEnd}, and every
 * process's RSS samples.
 */
export class Fleet {
  /** `cli`: the CLI's commands in the bench's process (bench/cli-in-process.mjs), for the endpoint toggles. */
  constructor(env, db, log, cli) {
    this.env = env;
    this.db = db;
    this.log = log;
    this.cliCommands = cli;
    this.processes = [];
    this.starting = new Set();
    this.kills = [];
    this.outages = [];
    this.toggles = [];
  }

  liveApis() {
    return this.processes.filter((p) => p.role === 'api' && p.killedAt === undefined);
  }

  /** Starts a process; a `watched` one is never killed, so its RSS is judged over the whole run. */
  async add(role, watched = false) {
    const start = startService(role, this.env, Date.now() + 300_000).then((p) => {
      p.samples = [];
      p.watched = watched;
      this.processes.push(p);
      this.sample(p);
      return p;
    });
    this.starting.add(start);
    try {
      return await start;
    } finally {
      this.starting.delete(start);
    }
  }

  sample(p) {
    const mib = rssMiB(p.pid);
    if (mib !== null && p.killedAt === undefined) p.samples.push({ t: Date.now(), mib });
  }

  /**
   * Every KILL_MIN..KILL_MAX seconds, SIGKILL a random running process that is not watched (roles take
   * turns, the first chosen at random, so both are hit) and start a new one of its role; with CHAOS_UNTIL, only
   * until each role's kills are done.
   */
  async killLoop(run, minS, maxS) {
    let role = Math.random() < 0.5 ? 'api' : 'worker';
    const other = (r) => (r === 'api' ? 'worker' : 'api');
    while (run.lastsPast(Date.now() + minS * 1000) && (run.wants('api_kills') || run.wants('worker_kills'))) {
      await run.pause(between(minS, maxS));
      if (run.over()) break;
      // A role whose kills are all done (CHAOS_UNTIL) leaves its turn to the other.
      if (!run.wants(`${role}_kills`)) role = other(role);
      const running = this.processes.filter((p) => p.role === role && p.killedAt === undefined && !p.watched);
      if (running.length > 0) {
        const victim = running[Math.floor(Math.random() * running.length)];
        this.sample(victim);
        victim.killedAt = Date.now();
        victim.child.kill('SIGKILL');
        this.kills.push({ role, pid: victim.pid, at: victim.killedAt });
        this.log(`killed ${role} ${victim.pid}`);
        this.add(role).catch((err) => this.log(`could not start a new ${role}: ${err.message}`));
      }
      role = other(role);
    }
  }

  /**
   * Every `everyS`: stop PostgreSQL (a clean shutdown ends every session), wait `downS`, start it again; an outage
   * starts only if it ends before the run's cap, and while CHAOS_UNTIL wants more.
   */
  async outageLoop(run, everyS, downS) {
    for (let next = Date.now() + everyS * 1000; run.lastsPast(next + downS * 1000) && run.wants('outages'); next += everyS * 1000) {
      await run.pause(Math.max(0, next - Date.now()));
      if (run.over()) break;
      const o = { stopStart: Date.now() };
      this.outages.push(o);
      this.log('stopping PostgreSQL');
      await this.db.stopServer();
      o.downAt = Date.now();
      await pause(downS * 1000);
      o.startAt = Date.now();
      await this.db.startServer();
      o.upAt = Date.now();
      this.log(`PostgreSQL back after ${((o.upAt - o.stopStart) / 1000).toFixed(1)} s`);
    }
  }

  /** Every `everyS` (while CHAOS_UNTIL wants more), one endpoint is disabled through the CLI's command and enabled again 3 to 8 s later. */
  async toggleLoop(run, everyS, endpoints) {
    while (run.lastsPast(Date.now() + everyS * 1000) && run.wants('disables')) {
      await run.pause(everyS * 1000);
      if (run.over()) break;
      const ep = endpoints[Math.floor(Math.random() * endpoints.length)];
      const t = { endpointId: ep.id, tag: ep.tag };
      this.toggles.push(t);
      [t.disableStart, t.disableEnd] = await this.cli(['endpoint', 'disable', '--id', ep.id]);
      await pause(between(3, 8));
      [t.enableStart, t.enableEnd] = await this.cli(['endpoint', 'enable', '--id', ep.id]);
    }
  }

  /** A CLI command, tried again while it fails (PostgreSQL down): [start of the first try, end of the one that worked]. */
  async cli(args) {
    const start = Date.now();
    for (let i = 0; ; i++) {
      try {
        await this.cliCommands.run(args);
        return [start, Date.now()];
      } catch (err) {
        if (i >= 30) throw err;
        await pause(1000);
      }
    }
  }

  async sampleLoop(until) {
    while (!until()) {
      for (const p of this.processes) this.sample(p);
      await pause(5000);
    }
  }

  /** Waits for the replacements under way, then stops every process (SIGTERM, then SIGKILL after 20 s). */
  async stopAll() {
    await Promise.allSettled([...this.starting]);
    await Promise.all(
      this.processes
        .filter((p) => p.killedAt === undefined)
        .map(async (p) => {
          p.child.kill('SIGTERM');
          const timer = setTimeout(() => p.child.kill('SIGKILL'), 20_000);
          await new Promise((r) => (p.child.exitCode === null && p.child.signalCode === null ? p.child.once('exit', r) : r()));
          clearTimeout(timer);
        }),
    );
  }
}
