import { once } from 'node:events';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReceivers } from '../chaos/receivers.mjs';
import { openCli } from '../cli-in-process.mjs';
import { freePort } from '../free-port.mjs';
import { startService } from '../service-process.mjs';
import { PostgresNode } from './postgres-node.mjs';
import { LaggingLink, SwitchableProxy } from './tcp-links.mjs';

export const SECRET_KEY = Buffer.alloc(32, 41).toString('base64');
export const INTERNAL_TOKEN = 'failover-internal-token-0123456789';
const dist = (path) => import(new URL(`../../dist/src/${path}`, import.meta.url).href);

/**
 * The parts every scenario of the failover run shares: one lineage of PostgreSQL servers (each scenario's standby is
 * promoted and becomes the next one's primary, so the database lives through several histories), the switchable
 * address the service's processes connect to, an api and a worker process, the receivers, and the CLI's commands.
 */
export class ClusterRun {
  constructor(log) {
    this.log = log;
    this.root = mkdtempSync(join(tmpdir(), 'failover-'));
    // PostgreSQL runs as the postgres user when the run is root's: it must reach its folders.
    chmodSync(this.root, 0o755);
    this.nodes = [];
    this.links = [];
    this.processes = [];
    this.env = null;
    this.cli = null;
  }

  async start() {
    this.primary = await this.node('pg_0', (name, dir, port) => PostgresNode.primary(name, dir, port));
    this.proxy = await new SwitchableProxy(this.primary.port).start();
    const { runMigrations } = await dist('database/migrate.js');
    await runMigrations(this.databaseUrl);
    this.receivers = await startReceivers();
  }

  get databaseUrl() {
    return `postgres://postgres@127.0.0.1:${this.proxy.port}/failover`;
  }

  async node(name, make) {
    const dir = join(this.root, name);
    const node = await make(name, dir, await freePort());
    this.nodes.push(node);
    return node;
  }

  /** A streaming standby of the primary, through a link that lags `lagMs`; synchronous when asked. */
  async standby(name, { lagMs = 0, sync = false } = {}) {
    const link = await new LaggingLink(this.primary.port, lagMs).start();
    this.links.push(link);
    const standby = await this.node(name, (n, dir, port) => PostgresNode.standby(n, dir, port, this.primary, link.port));
    await this.primary.synchronousStandby(sync ? name : null);
    await this.primary.streamsTo(name);
    return { standby, link };
  }

  /** The api and the worker processes, on this environment (restarted when it differs from theirs). */
  async services(extra) {
    const env = {
      DATABASE_URL: this.databaseUrl,
      WEBHOOK_SECRET_KEY: SECRET_KEY,
      INTERNAL_API_TOKEN: INTERNAL_TOKEN,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_LEASE: '15s',
      WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s,1s,1s',
      DATABASE_STATEMENT_TIMEOUT: '5s',
      RATE_LIMIT_PER_SECOND: '5000',
      // Three readers and a poller share one key and stand for separate readers: the per-key cap on requests under
      // way would queue them behind one another and thin the traffic the failover is judged on.
      CONCURRENT_REQUESTS_PER_KEY: '100',
      LOG_LEVEL: 'warn',
      DATA_DIR: join(this.root, 'service-data'),
      ...extra,
    };
    mkdirSync(env.DATA_DIR, { recursive: true });
    if (JSON.stringify(env) === JSON.stringify(this.env)) return;
    await this.stopServices();
    this.env = env;
    this.log(`starting an api and a worker process (${JSON.stringify(extra)})`);
    this.processes = await Promise.all([startService('api', env), startService('worker', env)]);
    this.cli = await openCli(env);
  }

  get api() {
    return this.processes.find((p) => p.role === 'api');
  }

  async stopServices() {
    await this.cli?.close();
    this.cli = null;
    for (const p of this.processes) {
      if (p.exited) continue;
      p.child.kill('SIGTERM');
      await once(p.child, 'exit');
    }
    this.processes = [];
  }

  /** A firm through the CLI's commands: settings, a reader's and a writer's key, an endpoint for every type. */
  async firm(tag) {
    const { DEMO_SETTINGS } = await dist('demo/index.js');
    const org = await this.cli.run(['org', 'create', '--name', `Failover ${tag}`, '--slug', `failover-${tag}`]);
    await this.cli.run(['receptionist', 'publish', '--org', org.id, '--file', '-'], JSON.stringify(DEMO_SETTINGS));
    const reader = await this.cli.run(['key', 'create', '--org', org.id, '--name', 'reader', '--set', 'read']);
    const writer = await this.cli.run(['key', 'create', '--org', org.id, '--name', 'writer', '--set', 'read-update-leads']);
    const endpoint = await this.cli.run([
      'endpoint',
      'create',
      '--org',
      org.id,
      '--url',
      this.receivers.urlFor(tag),
      '--types',
      'call.completed,lead.created,lead.updated',
    ]);
    this.receivers.setSecret(tag, endpoint.secret);
    return { tag, orgId: org.id, readerKey: reader.key, writerKey: writer.key, seq: 0 };
  }

  async close() {
    await this.stopServices();
    await this.proxy?.close();
    for (const link of this.links) await link.close();
    for (const node of this.nodes) await node.stop().catch(() => undefined);
    await this.receivers?.close();
    rmSync(this.root, { recursive: true, force: true });
  }
}
