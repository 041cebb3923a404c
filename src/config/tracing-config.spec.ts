import { loadTracingConfig } from './tracing-config';

const fail = (message: string): never => {
  throw new Error(message);
};
const load = (env: Record<string, string>) => loadTracingConfig(env, fail);

describe('loadTracingConfig (the standard OpenTelemetry variables)', () => {
  it('is off (null) without an OTLP endpoint, with OTEL_SDK_DISABLED=true or with OTEL_TRACES_EXPORTER=none', () => {
    expect(load({})).toBeNull();
    expect(load({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBeNull();
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
  });

  it('appends /v1/traces to the base endpoint and takes the traces endpoint as given', () => {
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })?.url).toBe('http://collector:4318/v1/traces');
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example/base' })?.url).toBe('https://otel.example/base/v1/traces');
    expect(
      load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/custom' })?.url,
    ).toBe('http://traces:9999/custom');
  });

  it('defaults to http/protobuf, the service name and a 5 s batch delay; reads headers and resource attributes', () => {
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toEqual({
      url: 'http://c:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      serviceName: 'receptionist-api',
      resourceAttributes: {},
      scheduleDelayMs: 5000,
    });
    const c = load({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-team=ops,authorization=Basic%20abc',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=traces',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=from-attrs',
      OTEL_SERVICE_NAME: 'api-eu',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    expect(c).toMatchObject({
      protocol: 'http/json',
      headers: { 'x-team': 'traces', authorization: 'Basic abc' },
      serviceName: 'api-eu',
      resourceAttributes: { 'deployment.environment': 'prod' },
      scheduleDelayMs: 200,
    });
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs' })?.serviceName).toBe(
      'from-attrs',
    );
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL.*grpc is not supported/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }, /OTEL_EXPORTER_OTLP_ENDPOINT is not a URL/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://c' }, /http:\/\/ or https:\/\//],
    [{ OTEL_EXPORTER_OTLP_HEADERS: 'novalue' }, /OTEL_EXPORTER_OTLP_HEADERS/],
    [{ OTEL_BSP_SCHEDULE_DELAY: '-1' }, /OTEL_BSP_SCHEDULE_DELAY/],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, /OTEL_TRACES_EXPORTER/],
  ])('refuses %j at boot, naming the variable', (env, message) => {
    expect(() => load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', ...env })).toThrow(message);
  });
});
