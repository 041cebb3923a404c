import type { TracingConfig } from '../../config/tracing-config.js';
import { Tracing } from './tracing.js';

/**
 * This app's tracer provider, exporting in batches over OTLP/HTTP (JSON or protobuf) to the configured URL.
 * Null config: `Tracing.OFF`, and no SDK object exists at all. The URL and headers are passed explicitly,
 * so what one app was configured with is what it uses (tests run several apps in one process).
 * The SDK and exporters (about 200 modules, a few hundred ms of CPU at start) are loaded only when tracing is on.
 */
export async function startTracing(config: TracingConfig | null): Promise<Tracing> {
  if (config === null) return Tracing.OFF;
  const [{ OTLPTraceExporter }, resources, sdk, semconv] = await Promise.all([
    config.protocol === 'http/json'
      ? import('@opentelemetry/exporter-trace-otlp-http')
      : import('@opentelemetry/exporter-trace-otlp-proto'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const exporter = new OTLPTraceExporter({ url: config.url, headers: config.headers });
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ ...config.resourceAttributes, [semconv.ATTR_SERVICE_NAME]: config.serviceName }));
  const provider = new sdk.BasicTracerProvider({
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor(exporter, { scheduledDelayMillis: config.scheduleDelayMs })],
  });
  return new Tracing(provider);
}
