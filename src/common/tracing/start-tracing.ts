import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TracingConfig } from '../../config/tracing-config.js';
import { Tracing } from './tracing.js';

/**
 * This app's tracer provider, exporting in batches over OTLP/HTTP (JSON or protobuf) to the configured URL.
 * Null config: `Tracing.OFF`, and no SDK object exists at all. The URL and headers are passed explicitly,
 * so what one app was configured with is what it uses (tests run several apps in one process).
 */
export function startTracing(config: TracingConfig | null): Tracing {
  if (config === null) return Tracing.OFF;
  const exporterConfig = { url: config.url, headers: config.headers };
  const exporter = config.protocol === 'http/json' ? new OtlpJsonExporter(exporterConfig) : new OtlpProtobufExporter(exporterConfig);
  const resource = defaultResource().merge(
    resourceFromAttributes({ ...config.resourceAttributes, [ATTR_SERVICE_NAME]: config.serviceName }),
  );
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: config.scheduleDelayMs })],
  });
  return new Tracing(provider);
}
