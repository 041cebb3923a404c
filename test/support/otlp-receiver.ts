import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeProtobufTraces, type ExportedSpan } from './otlp-protobuf';

export type { ExportedSpan };

export interface OtlpPost {
  contentType: string;
  body: Buffer;
}

type JsonValue = { stringValue?: string; boolValue?: boolean; intValue?: number | string; doubleValue?: number };
type JsonKeyValue = { key: string; value: JsonValue };

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    out[key] = value.stringValue ?? value.boolValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? ''));
  }
  return out;
}

/** OTLP/JSON (ids as hex, per the OTLP JSON mapping). */
function decodeJsonTraces(body: Buffer): ExportedSpan[] {
  const doc = JSON.parse(body.toString('utf8'));
  const spans: ExportedSpan[] = [];
  for (const rs of doc.resourceSpans ?? []) {
    const resource = jsonAttributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        spans.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? '',
          name: s.name,
          kind: s.kind,
          attributes: jsonAttributes(s.attributes),
          resource,
        });
      }
    }
  }
  return spans;
}

/**
 * A real OTLP/HTTP traces receiver on 127.0.0.1: accepts POST /v1/traces in JSON or protobuf, answers an
 * empty success, and keeps every body as sent (to search the raw bytes for secrets) and decoded.
 */
export class OtlpReceiver {
  readonly posts: OtlpPost[] = [];
  private readonly server = createServer((req, res) => this.handle(req, res));
  port = 0;

  static async start(): Promise<OtlpReceiver> {
    const r = new OtlpReceiver();
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    r.port = (r.server.address() as AddressInfo).port;
    return r;
  }

  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to (the exporter appends /v1/traces). */
  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  spans(): ExportedSpan[] {
    return this.posts.flatMap((p) => (p.contentType.includes('json') ? decodeJsonTraces(p.body) : decodeProtobufTraces(p.body)));
  }

  /** Every exported byte as text: strings are UTF-8 in both encodings, so a secret would show as itself. */
  rawText(): string {
    return this.posts.map((p) => p.body.toString('latin1')).join('\n');
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const contentType = String(req.headers['content-type'] ?? '');
      this.posts.push({ contentType, body: Buffer.concat(chunks) });
      // An empty ExportTraceServiceResponse: `{}` in JSON, zero bytes in protobuf.
      if (contentType.includes('json')) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  }
}
