import { loadConfig } from './app-config';

const KEY = Buffer.alloc(32, 0xab);

describe('configuredSecrets (AppConfig.secretValues)', () => {
  it('holds the value of every secret the service is configured with, each once', () => {
    const c = loadConfig({
      DATABASE_URL: 'postgres://app:db%2Fpass%40word@db:5432/x',
      WEBHOOK_SECRET_KEY: KEY.toString('hex').toUpperCase(),
      INTERNAL_API_TOKEN: 'internal-token-0123456789',
      METRICS_TOKEN: 'metrics-0042',
      SMTP_URL: 'smtps://mailer:mail-pass@smtp.example.com:465',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example.com',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-honeycomb-team=hc-key-1234,authorization=Bearer%20otlp-credential',
      AWS_SECRET_ACCESS_KEY: 'aws/secret+key',
      AWS_SESSION_TOKEN: 'aws-session-token',
    });
    expect([...c.secretValues].sort()).toEqual(
      [
        'internal-token-0123456789',
        'metrics-0042',
        KEY.toString('hex').toUpperCase(),
        KEY.toString('hex'),
        KEY.toString('base64'),
        KEY.toString('base64url'),
        'db/pass@word',
        'mail-pass',
        'hc-key-1234',
        'Bearer otlp-credential',
        'otlp-credential',
        'aws/secret+key',
        'aws-session-token',
      ].sort(),
    );
  });

  it('with nothing but the required key, holds that key in its forms', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://db:5432/x', WEBHOOK_SECRET_KEY: KEY.toString('base64') });
    expect([...c.secretValues].sort()).toEqual([KEY.toString('base64'), KEY.toString('base64url'), KEY.toString('hex')].sort());
  });
});
