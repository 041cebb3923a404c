/**
 * System calls per request of a server process, split by what is at the other end of the socket (the HTTP client
 * or PostgreSQL), when BENCH_SYSCALLS=1: `strace` (Debian's `strace` package) follows the process for a run of
 * requests sent one at a time, so each request's calls are its own and not shared with concurrent ones (a
 * group-committed audit INSERT then costs a whole round trip a read; under load it is shared).
 *
 * BENCH_SYSCALLS_KEEP=1 keeps strace's output (its path is printed) to read the calls themselves.
 *
 * Round trips are what the CPU profiles cannot count: each is a write, a wake-up and a read on both sides.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const syscallsWanted = () => process.env.BENCH_SYSCALLS === '1';

const TRACED = 'read,readv,write,writev,sendto,recvfrom,epoll_wait,epoll_pwait,epoll_ctl,futex';

/** Whether strace can run here (it is not installed everywhere). */
export const straceAvailable = () => spawnSync('strace', ['-V']).status === 0;

/**
 * Follows `pid` while `work()` runs, then resolves to the system calls per request (`requests` of them): per
 * syscall name, and the reads and writes by peer: `http` (a socket to `httpPort`), `pg` (a socket to `pgPort`).
 */
export async function syscallsPerRequest(pid, { httpPort, pgPort, requests, work }) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-strace-'));
  const out = join(dir, 'trace');
  const strace = spawn('strace', ['-f', '-qq', '-yy', '-e', `trace=${TRACED}`, '-o', out, '-p', String(pid)], { stdio: 'ignore' });
  try {
    await new Promise((r) => setTimeout(r, 500)); // attached
    await work();
  } finally {
    strace.kill('SIGINT');
    await new Promise((r) => strace.once('exit', r));
  }
  const counts = {};
  const peers = { http: { reads: 0, writes: 0 }, pg: { reads: 0, writes: 0 } };
  for (const line of readFileSync(out, 'utf8').split('\n')) {
    const m = /^\d+\s+(\w+)\((.*)$/.exec(line);
    if (!m) continue;
    const [, name, rest] = m;
    counts[name] = (counts[name] ?? 0) + 1;
    const socket = /^\d+<TCP(?:v6)?:\[([^\]]+)\]>/.exec(rest)?.[1];
    if (!socket) continue;
    const peer = socket.includes(`:${pgPort}`) ? 'pg' : socket.includes(`:${httpPort}`) ? 'http' : null;
    if (!peer) continue;
    if (/^(write|writev|sendto)$/.test(name)) peers[peer].writes++;
    else if (/^(read|readv|recvfrom)$/.test(name)) peers[peer].reads++;
  }
  if (process.env.BENCH_SYSCALLS_KEEP) process.stderr.write(`strace output kept: ${out}\n`);
  else rmSync(dir, { recursive: true, force: true });
  const per = (n) => +(n / requests).toFixed(2);
  return {
    byName: Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, per(v)])),
    http: { reads: per(peers.http.reads), writes: per(peers.http.writes) },
    pg: { reads: per(peers.pg.reads), writes: per(peers.pg.writes) },
  };
}
