import { Logger } from '@nestjs/common';
import type { Agent, Dispatcher, request } from 'undici';
import { WEBHOOK_SEND_TIMEOUT_MS } from '../config/app-config.js';
import type { AttemptResult } from './delivery-rules.js';
import { literalAddressAllowed, safeLookup } from './safe-target.js';

/** A receiver has this long to answer (2xx), from the start of the connection. */
export const SEND_TIMEOUT_MS = WEBHOOK_SEND_TIMEOUT_MS;
export const RESPONSE_BODY_CHARS = 500;
/** Enough bytes for 500 characters of any UTF-8 text; never read more. */
const RESPONSE_BODY_BYTES = RESPONSE_BODY_CHARS * 4;

/** Turns a transport failure into the attempt's error text. */
export function describeSendError(err: unknown): string {
  const seen = new Set<unknown>();
  const codes: string[] = [];
  for (
    let e = err as { code?: unknown; name?: unknown; cause?: unknown } | undefined;
    e && typeof e === 'object' && !seen.has(e);
    e = e.cause as typeof e
  ) {
    seen.add(e);
    if (typeof e.code === 'string') codes.push(e.code);
    if (typeof e.name === 'string') codes.push(e.name);
  }
  const has = (...c: string[]) => codes.some((x) => c.includes(x));
  if (has('EDISALLOWEDADDRESS')) return 'disallowed address';
  if (has('TimeoutError', 'AbortError', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT'))
    return 'timeout';
  if (has('ECONNREFUSED')) return 'refused connection';
  if (has('ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_NONAME')) return 'host not found';
  if (codes.some((c) => /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|EPROTO|HOSTNAME_MISMATCH|ERR_OSSL)/.test(c)))
    return 'tls error';
  if (has('ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED')) return 'connection reset';
  if (has('EHOSTUNREACH', 'ENETUNREACH')) return 'unreachable';
  return 'connection error';
}

/** At most RESPONSE_BODY_BYTES, then the stream is destroyed (a huge or endless body costs nothing more). */
async function readPrefix(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= RESPONSE_BODY_BYTES) break;
    }
  } catch {
    // Timed out or reset after the status arrived: the status decides; keep what was read.
  } finally {
    if (!body.destroyed) body.destroy();
  }
  const text = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_BYTES).toString('utf8');
  // PostgreSQL text cannot hold NUL; characters are counted as code points.
  return Array.from(text.replaceAll('\u0000', '')).slice(0, RESPONSE_BODY_CHARS).join('');
}

/**
 * One POST per attempt with undici. Redirects are never followed. Unless
 * private targets are allowed, only https to public addresses: a literal IP
 * is checked here, a host name through `safeLookup`, whose checked address is
 * the one the socket connects to.
 */
export class WebhookSender {
  /**
   * undici (110 modules, about 0.2 s of CPU to load) is loaded by the first attempt, not when the sender is built:
   * every process builds one (the dispatcher is a provider of the webhooks context in each role), and the API role and
   * the CLI never send.
   */
  private undici?: Promise<{ agent: Agent; request: typeof request }>;
  private readonly logger = new Logger(WebhookSender.name);
  private hinted = false;

  constructor(private readonly opts: { allowPrivateTargets: boolean; timeoutMs?: number }) {}

  private loadUndici(): Promise<{ agent: Agent; request: typeof request }> {
    const timeout = this.opts.timeoutMs ?? SEND_TIMEOUT_MS;
    this.undici ??= import('undici').then((undici) => ({
      agent: new undici.Agent({
        connect: { timeout, ...(this.opts.allowPrivateTargets ? {} : { lookup: safeLookup as never }) },
        headersTimeout: timeout,
        bodyTimeout: timeout,
        keepAliveTimeout: 4_000,
      }),
      request: undici.request,
    }));
    return this.undici;
  }

  async post(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const result = await this.attempt(url, headers, body);
    if (result.error === 'disallowed address') this.hintPrivateTargets();
    return result;
  }

  /**
   * The attempt's error text stays the spec's `disallowed address`; the operator who pointed an
   * endpoint at a local receiver learns the setting from the log, once per process.
   */
  private hintPrivateTargets(): void {
    if (this.hinted) return;
    this.hinted = true;
    this.logger.warn(
      'a webhook delivery was refused: its target is not a public https address (disallowed address); ' +
        'WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows http:// and private targets, for local testing only',
    );
  }

  private async attempt(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const { agent, request } = await this.loadUndici();
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const refused = (error: string): AttemptResult => ({ statusCode: null, durationMs: null, error, responseBody: null });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return refused('invalid url');
    }
    if (!this.opts.allowPrivateTargets && (target.protocol !== 'https:' || literalAddressAllowed(target.hostname) === false)) {
      return refused('disallowed address');
    }
    let res: Dispatcher.ResponseData;
    try {
      res = await request(target, {
        dispatcher: agent,
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? SEND_TIMEOUT_MS),
      });
    } catch (err) {
      return { statusCode: null, durationMs: elapsed(), error: describeSendError(err), responseBody: null };
    }
    const durationMs = elapsed();
    const responseBody = await readPrefix(res.body);
    const redirect = res.statusCode >= 300 && res.statusCode < 400;
    return { statusCode: res.statusCode, durationMs, error: redirect ? 'redirect not followed' : null, responseBody };
  }

  async close(): Promise<void> {
    // A sender that never sent has no agent to close (and loads nothing to close it).
    if (this.undici) await (await this.undici).agent.close().catch(() => undefined);
  }
}
