import { INTERNAL_TOKEN } from './cluster.mjs';

const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * HTTP to the live api processes (127.0.0.1 only), each answer logged for the checker:
 * {op, status, code, retryAfter, t0, t1, error, target}. A transport error (a killed
 * process cannot answer) is logged with status 0 and the error's code.
 */
export class ChaosClient {
  constructor(cluster) {
    this.cluster = cluster;
    this.answers = [];
  }

  /** A random live api process; waits (bounded) while none serves (both were just killed). */
  async target() {
    for (let i = 0; i < 600; i++) {
      const apis = this.cluster.liveApis();
      if (apis.length > 0) return apis[Math.floor(Math.random() * apis.length)];
      await pause(100);
    }
    throw new Error('no api process served for 60 s');
  }

  /** One request; `o`: key, internal, body (JSON), raw + type, headers, target (a given process). */
  async request(op, method, path, o = {}) {
    const target = o.target ?? (await this.target());
    const headers = { ...(o.headers ?? {}) };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    if (o.internal) headers.authorization = `Bearer ${INTERNAL_TOKEN}`;
    let body;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] = 'application/json';
    } else if (o.raw) {
      body = o.raw;
      headers['content-type'] = o.type;
    }
    const entry = { op, status: 0, code: null, retryAfter: null, t0: Date.now(), t1: 0, error: null, target };
    let json = null;
    try {
      const res = await fetch(target.baseUrl + path, { method, headers, body, signal: AbortSignal.timeout(60_000) });
      const bytes = Buffer.from(await res.arrayBuffer());
      entry.status = res.status;
      entry.retryAfter = res.headers.get('retry-after');
      if ((res.headers.get('content-type') ?? '').includes('json') && bytes.length > 0) json = JSON.parse(bytes.toString('utf8'));
      entry.code = res.status >= 400 ? (json?.code ?? null) : null;
    } catch (err) {
      entry.error = err?.cause?.code ?? err?.name ?? String(err);
    }
    entry.t1 = Date.now();
    this.answers.push(entry);
    return { status: entry.status, body: json, entry };
  }
}
