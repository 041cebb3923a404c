const REDACTED = '[REDACTED]';

/**
 * Shorter values are too likely to be ordinary text ("postgres" is 8) to be cut out of every line: they are matched
 * only as a whole JSON string (a User-Agent or header value that is exactly the secret) and as a whole request id.
 */
export const MIN_SEARCHED_LENGTH = 8;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** The value as it stands inside a JSON string (a quote or a backslash escaped, a control character as \u00XX). */
const inJson = (value: string) => JSON.stringify(value).slice(1, -1);

/** The value with any of its characters percent-encoded (`%41` or `%4a` for a letter), as a URL or header may carry it. */
function percentEncodedForm(value: string): RegExp {
  const parts = [...value].map((char) => {
    const bytes = [...Buffer.from(char, 'utf8')].map(
      (b) =>
        `%${b
          .toString(16)
          .padStart(2, '0')
          .replace(/[a-f]/g, (h) => `[${h}${h.toUpperCase()}]`)}`,
    );
    return `(?:${escapeRegExp(inJson(char))}|${bytes.join('')})`;
  });
  return new RegExp(parts.join(''), 'g');
}

interface Searched {
  json: string;
  percent: RegExp;
}

/**
 * The values of the secrets the service is configured with (AppConfig.secretValues), cut out of every log line
 * wherever a request put them (a User-Agent, an x-request-id, a header, a URL, percent-encoded or not), and never
 * taken as a request id. A line without any of them costs one `includes` per secret (and, when it holds a `%`, one
 * regular expression per secret).
 */
export class SecretValues {
  private readonly searched: Searched[];
  private readonly whole: Set<string>;
  private readonly all: readonly string[];

  constructor(values: readonly string[]) {
    this.all = values.filter((v) => v !== '');
    const long = this.all.filter((v) => v.length >= MIN_SEARCHED_LENGTH);
    // Longest first, so a secret that contains another is cut out whole.
    this.searched = long.sort((a, b) => b.length - a.length).map((v) => ({ json: inJson(v), percent: percentEncodedForm(v) }));
    this.whole = new Set(this.all.filter((v) => v.length < MIN_SEARCHED_LENGTH).map((v) => `"${inJson(v)}"`));
  }

  get empty(): boolean {
    return this.all.length === 0;
  }

  /** A log line (JSON text) with every configured secret replaced by [REDACTED]. */
  redactLine(line: string): string {
    let out = line;
    for (const s of this.searched) if (out.includes(s.json)) out = out.split(s.json).join(REDACTED);
    if (out.includes('%')) for (const s of this.searched) out = out.replace(s.percent, REDACTED);
    for (const quoted of this.whole) if (out.includes(quoted)) out = out.split(quoted).join(`"${REDACTED}"`);
    return out;
  }

  /** The text holds a configured secret (or is one of the short ones), as sent or percent-encoded. */
  holdsOne(text: string): boolean {
    if (this.all.includes(text)) return true;
    const json = inJson(text);
    return this.searched.some((s) => json.includes(s.json) || (text.includes('%') && new RegExp(s.percent.source).test(json)));
  }
}

const ofConfig = new WeakMap<object, SecretValues>();

/** The configured secrets of one configuration (built once: its logger and its request ids share them). */
export function secretValuesOf(config: { secretValues: readonly string[] }): SecretValues {
  let found = ofConfig.get(config);
  if (!found) ofConfig.set(config, (found = new SecretValues(config.secretValues)));
  return found;
}
