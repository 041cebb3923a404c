import type { CliCommand } from './command.js';

/**
 * Characters a terminal acts on (C0 controls but newline and tab, DEL, C1 controls) or that reorder the text around
 * them (the bidirectional marks, embeddings, overrides and isolates, and the line and paragraph separators): a
 * firm's name, an endpoint's description, a receiver's answer can hold any of them.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it finds.
const UNSAFE_IN_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** In JSON text: the same set but C0, which JSON.stringify escapes itself. */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const hex = (c: string, width: number) => c.charCodeAt(0).toString(16).padStart(width, '0');

/** Text for a terminal: each unsafe character written as an escape (`\x1b`, `\u202e`), so it is seen and does nothing. */
export const printable = (text: string): string =>
  text.replace(UNSAFE_IN_TEXT, (c) => (c.charCodeAt(0) <= 0xff ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`));

/** JSON text with every unsafe character as a `\uNNNN` escape: the same value once parsed, harmless on a terminal. */
export const safeJson = (value: unknown, indent?: number): string =>
  JSON.stringify(value, null, indent).replace(UNSAFE_IN_JSON, (c) => `\\u${hex(c, 4)}`);

/** What a command prints on stdout (without the final newline): with --json one JSON object, else its human form. */
export function renderResult(command: CliCommand, result: Record<string, unknown>, json: boolean): string {
  if (json) return safeJson(result);
  return command.human ? printable(command.human(result)) : safeJson(result, 2);
}
