import type { TracingConfig } from './tracing-config.js';

/** What the secrets are read from: the environment and the values loadConfig already validated. */
export interface SecretSources {
  env: NodeJS.ProcessEnv;
  internalApiToken: string | null;
  metricsToken: string | null;
  webhookSecretKey: Buffer;
  databaseUrl: string | null;
  smtpUrl: string | null;
  tracing: TracingConfig | null;
}

/** The password of a URL, percent-decoded as the driver reads it; null when there is none. */
function passwordOf(url: string | null): string | null {
  if (url === null) return null;
  try {
    const password = new URL(url).password;
    return password === '' ? null : decodeURIComponent(password);
  } catch {
    return null;
  }
}

/** A header value and, when it is `<scheme> <credential>` (`Bearer abc`), the credential alone. */
const headerSecrets = (value: string): string[] => {
  const credential = /^\S+\s+(\S+)$/.exec(value.trim())?.[1];
  return credential ? [value, credential] : [value];
};

/**
 * The value of every secret the service is configured with, for log redaction only (logging/secret-values.ts):
 * INTERNAL_API_TOKEN, METRICS_TOKEN, WEBHOOK_SECRET_KEY (as written, and its 32 bytes in hex and base64, whichever
 * way it was given or generated), the passwords in DATABASE_URL and SMTP_URL, the OTLP exporter's header values
 * (an API key or a Bearer credential, and the credential alone), and the S3 credentials the AWS SDK reads from the
 * environment (AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN). Each value once.
 */
export function configuredSecrets(s: SecretSources): string[] {
  const key = s.webhookSecretKey;
  const values = [
    s.internalApiToken,
    s.metricsToken,
    s.env.WEBHOOK_SECRET_KEY?.trim(),
    key.toString('hex'),
    key.toString('base64'),
    key.toString('base64url'),
    passwordOf(s.databaseUrl),
    passwordOf(s.smtpUrl),
    ...Object.values(s.tracing?.headers ?? {}).flatMap(headerSecrets),
    s.env.AWS_SECRET_ACCESS_KEY,
    s.env.AWS_SESSION_TOKEN,
  ];
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''))];
}
