/**
 * How the console prints text it does not trust (a receiver's answer, a description, a URL, an error): HTML-escaped,
 * and every bidirectional control shown as its code point, `<U+202E>`, so a right-to-left override in a receiver's
 * answer cannot reorder what the page shows around it.
 */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
const HTML_SPECIAL = /[&<>"']/g;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const hasBidiControls = (text: string | null): boolean => text !== null && new RegExp(BIDI_CONTROLS.source).test(text);

export const showBidiControls = (text: string): string =>
  text.replace(BIDI_CONTROLS, (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`);

/** Text for an HTML attribute or element, exactly as it is (the edit form's fields, which must save what they hold). */
export const escapeHtml = (value: unknown): string => String(value).replace(HTML_SPECIAL, (c) => ENTITIES[c]);

/** Eta's escape of every `<%= %>`: bidirectional controls made visible, then HTML-escaped. */
export const escapeShown = (value: unknown): string => escapeHtml(showBidiControls(String(value)));

const formats = new Map<string, Intl.DateTimeFormat>();

function formatIn(timezone: string): Intl.DateTimeFormat {
  let format = formats.get(timezone);
  if (!format) {
    const options: Intl.DateTimeFormatOptions = {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    };
    try {
      format = new Intl.DateTimeFormat('en-US', { ...options, timeZone: timezone });
    } catch {
      format = new Intl.DateTimeFormat('en-US', { ...options, timeZone: 'UTC' });
    }
    formats.set(timezone, format);
  }
  return format;
}

/** An instant as the pages show it: the firm's local time to the second with the zone's abbreviation ("—" for none). */
export function timeIn(timezone: string): (at: string | Date | null | undefined) => string {
  const format = formatIn(timezone);
  return (at) => {
    if (at === null || at === undefined) return '—';
    const part = Object.fromEntries(format.formatToParts(typeof at === 'string' ? new Date(at) : at).map((p) => [p.type, p.value]));
    return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}:${part.second} ${part.timeZoneName}`;
  };
}

/** The zone's abbreviation at an instant ("CDT"), for the chart's axis. */
export const zoneAbbreviation = (timezone: string, at: Date): string =>
  formatIn(timezone)
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName')?.value ?? timezone;
