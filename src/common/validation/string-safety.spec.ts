import { MAX_DEPTH, findUnsafeString } from './string-safety.js';
import { PassThrough } from 'node:stream';

describe('findUnsafeString', () => {
  it('names the first string with a NUL, at any depth', () => {
    expect(findUnsafeString({ a: 'ok', b: { c: ['fine', 'x\u0000'] } })).toEqual({
      path: 'b.c[1]',
      message: 'must not contain NUL characters',
    });
  });

  it('names lone high and low surrogates, and accepts pairs', () => {
    expect(findUnsafeString({ s: 'a\ud800b' })?.path).toBe('s');
    expect(findUnsafeString({ s: '\udc00' })?.path).toBe('s');
    expect(findUnsafeString({ s: 'a\ud800' })?.path).toBe('s');
    expect(findUnsafeString({ s: '\u{1F600} and caf\u00e9' })).toBeNull();
  });

  it('refuses a member name that is not text, without repeating it', () => {
    expect(findUnsafeString({ o: { 'k\u0000': 1 } })).toEqual({
      path: 'o',
      message: 'has a member name that must not contain NUL characters',
    });
  });

  it('names a top-level string body "body", prefixes a given path, and leaves streams alone', () => {
    expect(findUnsafeString('\u0000')?.path).toBe('body');
    expect(findUnsafeString({ x: '\u0000' }, 'doc')?.path).toBe('doc.x');
    expect(findUnsafeString(new PassThrough())).toBeNull();
    expect(findUnsafeString({ n: 1, b: true, z: null })).toBeNull();
  });

  it('refuses nesting deeper than MAX_DEPTH (20,000 levels used to overflow the stack: a 500), naming where', () => {
    const deep = (n: number, leaf: unknown = 1): unknown => (n === 0 ? leaf : { a: deep(n - 1, leaf) });
    expect(findUnsafeString(deep(MAX_DEPTH))).toBeNull();
    expect(findUnsafeString(deep(MAX_DEPTH + 1))).toEqual({
      path: Array(MAX_DEPTH).fill('a').join('.'),
      message: `must not be nested more than ${MAX_DEPTH} levels deep`,
    });
    expect(findUnsafeString({ status: JSON.parse('['.repeat(20_000) + ']'.repeat(20_000)) })?.message).toBe(
      `must not be nested more than ${MAX_DEPTH} levels deep`,
    );
    expect(findUnsafeString(JSON.parse('{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000)))?.path).toMatch(/^a(\.a)+$/);
  });
});
