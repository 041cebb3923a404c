/** One exported span, the same shape whichever OTLP encoding carried it. */
export interface ExportedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's enum: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  resource: Record<string, string | number | boolean>;
}

/**
 * A protobuf wire-format reader for the part of OTLP's ExportTraceServiceRequest the tests assert on
 * (opentelemetry-proto, trace/v1 and common/v1 field numbers). The OTel JS packages ship an encoder and
 * no decoder for requests, so this walks the wire format itself: small, and independent of the code under test.
 */
type Field = { no: number; wire: number; varint: bigint; bytes: Buffer };

function readVarint(buf: Buffer, at: number): [bigint, number] {
  let value = 0n;
  let shift = 0n;
  for (let i = at; i < buf.length; i++) {
    value |= BigInt(buf[i] & 0x7f) << shift;
    if ((buf[i] & 0x80) === 0) return [value, i + 1];
    shift += 7n;
  }
  throw new Error('truncated varint');
}

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  for (let at = 0; at < buf.length;) {
    const [tag, next] = readVarint(buf, at);
    const no = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    at = next;
    if (wire === 0) {
      const [varint, after] = readVarint(buf, at);
      out.push({ no, wire, varint, bytes: Buffer.alloc(0) });
      at = after;
    } else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      out.push({ no, wire, varint: 0n, bytes: buf.subarray(at, at + size) });
      at += size;
    } else if (wire === 2) {
      const [len, after] = readVarint(buf, at);
      out.push({ no, wire, varint: 0n, bytes: buf.subarray(after, after + Number(len)) });
      at = after + Number(len);
    } else {
      throw new Error(`unexpected wire type ${wire}`);
    }
  }
  return out;
}

const all = (buf: Buffer, no: number) => fields(buf).filter((f) => f.no === no);

/** AnyValue: 1 string, 2 bool, 3 int, 4 double. */
function anyValue(buf: Buffer): string | number | boolean {
  for (const f of fields(buf)) {
    if (f.no === 1) return f.bytes.toString('utf8');
    if (f.no === 2) return f.varint !== 0n;
    if (f.no === 3) return Number(BigInt.asIntN(64, f.varint));
    if (f.no === 4) return f.bytes.readDoubleLE(0);
  }
  return '';
}

/** Repeated KeyValue (1 key, 2 value). */
function attributes(list: Field[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const kv of list) {
    const parts = fields(kv.bytes);
    const key = parts.find((p) => p.no === 1)?.bytes.toString('utf8') ?? '';
    const value = parts.find((p) => p.no === 2);
    out[key] = value ? anyValue(value.bytes) : '';
  }
  return out;
}

/** Span: 1 trace_id, 2 span_id, 4 parent_span_id, 5 name, 6 kind, 9 attributes. */
function span(buf: Buffer, resource: ExportedSpan['resource']): ExportedSpan {
  const parts = fields(buf);
  const bytes = (no: number) => parts.find((p) => p.no === no)?.bytes ?? Buffer.alloc(0);
  return {
    traceId: bytes(1).toString('hex'),
    spanId: bytes(2).toString('hex'),
    parentSpanId: bytes(4).toString('hex'),
    name: bytes(5).toString('utf8'),
    kind: Number(parts.find((p) => p.no === 6)?.varint ?? 0n),
    attributes: attributes(parts.filter((p) => p.no === 9)),
    resource,
  };
}

/** ExportTraceServiceRequest: 1 resource_spans { 1 resource { 1 attributes }, 2 scope_spans { 2 spans } }. */
export function decodeProtobufTraces(body: Buffer): ExportedSpan[] {
  const spans: ExportedSpan[] = [];
  for (const rs of all(body, 1)) {
    const resourceField = all(rs.bytes, 1)[0];
    const resource = resourceField ? attributes(all(resourceField.bytes, 1)) : {};
    for (const ss of all(rs.bytes, 2)) for (const s of all(ss.bytes, 2)) spans.push(span(s.bytes, resource));
  }
  return spans;
}
