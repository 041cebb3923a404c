// Output of the listen command (listen.mjs): what ends it, and text from the API made safe for a terminal.

/** A problem that ends the command: said once on stderr, exit 1 (2 for usage). */
export class Fatal extends Error {
  constructor(message, code = 1) {
    super(message);
    this.code = code;
  }
}

/** Characters a terminal acts on (C0 and C1 controls, DEL) or that reorder text (bidirectional marks and overrides). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const escapeChar = (c) => {
  const n = c.charCodeAt(0);
  return n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
};
/** Text from the API or a receiver, made safe for a terminal: each unsafe character written as an escape (`\x1b`). */
export const printable = (text) => String(text).replace(UNSAFE, escapeChar);
/** One JSON line; JSON escapes C0 controls itself, and the rest of UNSAFE is escaped as `\uNNNN` (same value, still JSON). */
export const jsonLine = (value) =>
  `${JSON.stringify(value).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
