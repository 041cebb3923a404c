import type { CliCommand } from './command';
import { printable, renderResult, safeJson } from './output';

// eslint-disable-next-line no-control-regex -- control characters are what it looks for.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const command = (human?: CliCommand['human']): CliCommand => ({ name: 'x', summary: 'x', flags: {}, run: async () => ({}), human });
/** A receiver's answer or a firm's name as an attacker would write it. */
const HOSTILE = 'ok\u202egnp.exe \u2067rtl\u2069 \u200f\u061c \u001b[31mred\u0007 \u009b6n \u2028end';

describe('CLI output', () => {
  it('text shows every control and bidirectional character as an escape, newlines and tabs kept', () => {
    const out = printable(`${HOSTILE}\n\tnext`);
    expect(out).not.toMatch(UNSAFE);
    expect(out).toBe('ok\\u202egnp.exe \\u2067rtl\\u2069 \\u200f\\u061c \\x1b[31mred\\x07 \\x9b6n \\u2028end\n\tnext');
  });

  it('--json escapes them as \\uNNNN: the same value, nothing a terminal acts on', () => {
    const text = renderResult(command(), { answer: HOSTILE }, true);
    expect(text).not.toMatch(UNSAFE);
    expect(JSON.parse(text)).toEqual({ answer: HOSTILE });
    expect(JSON.parse(safeJson({ answer: HOSTILE }, 2))).toEqual({ answer: HOSTILE });
  });

  it("a command's human form and the pretty JSON without one are escaped alike", () => {
    expect(
      renderResult(
        command((r) => `name: ${String(r.name)}`),
        { name: HOSTILE },
        false,
      ),
    ).not.toMatch(UNSAFE);
    const pretty = renderResult(command(), { name: HOSTILE }, false);
    expect(pretty).not.toMatch(UNSAFE);
    expect(JSON.parse(pretty)).toEqual({ name: HOSTILE });
  });
});
