/** Where and how spans are exported: read from the standard OpenTelemetry variables. */
export interface TracingConfig {
  /** The full OTLP/HTTP traces URL (…/v1/traces). */
  url: string;
  protocol: 'http/json' | 'http/protobuf';
  headers: Record<string, string>;
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, with service.name from OTEL_SERVICE_NAME winning. */
  resourceAttributes: Record<string, string>;
  /** OTEL_BSP_SCHEDULE_DELAY: how long finished spans wait to be sent in a batch. */
  scheduleDelayMs: number;
}

/** Throws, with a message that names the variable (the caller's ConfigError). */
type Fail = (message: string) => never;

const PROTOCOLS = ['http/json', 'http/protobuf'] as const;

/** `k1=v1,k2=v2` with percent-encoded values, as OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES are written. */
function keyValueList(text: string | undefined, name: string, fail: Fail): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (text ?? '').split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) fail(`${name}: "${part.trim()}" is not key=value`);
    try {
      out[decodeURIComponent(part.slice(0, eq).trim())] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      fail(`${name}: a key or value is not valid percent-encoding`);
    }
  }
  return out;
}

function tracesUrl(env: NodeJS.ProcessEnv, fail: Fail): string | null {
  const signal = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  // The signal-specific URL is used as given; the base one gets the signal's path appended (OTLP exporter spec).
  const text = signal || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : null);
  if (text === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    fail(`${signal ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT'} is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    fail('the OTLP endpoint must be an http:// or https:// URL');
  }
  return text;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, dflt: number, fail: Fail): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 3_600_000) fail(`${name} must be a whole number of milliseconds`);
  return n;
}

/**
 * Tracing is on only when an OTLP endpoint is set (and neither OTEL_SDK_DISABLED=true nor
 * OTEL_TRACES_EXPORTER=none says otherwise); null means off: no SDK is started at all.
 */
export function loadTracingConfig(env: NodeJS.ProcessEnv, fail: Fail): TracingConfig | null {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return null;
  const exporter = (env.OTEL_TRACES_EXPORTER ?? 'otlp').trim().toLowerCase();
  if (exporter === 'none') return null;
  if (exporter !== 'otlp' && exporter !== '') fail('OTEL_TRACES_EXPORTER must be otlp or none');
  const url = tracesUrl(env, fail);
  if (url === null) return null;
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf').trim();
  if (!(PROTOCOLS as readonly string[]).includes(protocol)) {
    fail(`OTEL_EXPORTER_OTLP_PROTOCOL must be one of ${PROTOCOLS.join(', ')} (grpc is not supported)`);
  }
  const resourceAttributes = keyValueList(env.OTEL_RESOURCE_ATTRIBUTES, 'OTEL_RESOURCE_ATTRIBUTES', fail);
  return {
    url,
    protocol: protocol as TracingConfig['protocol'],
    headers: {
      ...keyValueList(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS', fail),
      ...keyValueList(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', fail),
    },
    serviceName: env.OTEL_SERVICE_NAME?.trim() || resourceAttributes['service.name'] || 'receptionist-api',
    resourceAttributes,
    scheduleDelayMs: positiveInt(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000, fail),
  };
}
