import { parseRange } from './byte-range';

describe('byte ranges', () => {
  const size = 1000;

  it.each([
    ['bytes=0-', { start: 0, end: 999 }],
    ['bytes=10-19', { start: 10, end: 19 }],
    ['bytes=990-5000', { start: 990, end: 999 }],
    ['bytes=-100', { start: 900, end: 999 }],
    ['bytes=-5000', { start: 0, end: 999 }],
    ['BYTES=5-5', { start: 5, end: 5 }],
    ['  bytes=7-8  ', { start: 7, end: 8 }],
  ])('serves %j as %j', (header, range) => {
    expect(parseRange(header, size)).toEqual(range);
  });

  it.each([
    [undefined],
    ['bytes=1000-'],
    ['bytes=20-10'],
    ['bytes=-0'],
    ['bytes=0-1,5-6'],
    ['bytes=,0-1'],
    ['items=0-1'],
    ['bytes=a-b'],
    ['bytes=1234567890123456-'],
    [''],
    ['bytes='],
  ])('ignores %j (the whole file, never 416)', (header) => {
    expect(parseRange(header, size)).toBeNull();
  });

  it('serves an empty file whole whatever the header', () => {
    expect(parseRange('bytes=0-', 0)).toBeNull();
  });
});
