import { findUnsafeString } from './string-safety.js';
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
});
