import { InvalidRequestError } from '../errors/problems';
import { CursorCodec } from './cursor';
import { KeysetCursors, splitPage } from './keyset';

const codec = new CursorCodec(Buffer.alloc(32, 3));
const keyset = new KeysetCursors(codec);
const rows = [
  { at: '2026-03-03T00:00:00.000Z', id: 'c' },
  { at: '2026-03-02T00:00:00.000Z', id: 'b' },
  { at: '2026-03-01T00:00:00.000Z', id: 'a' },
];

describe('keyset pages', () => {
  it('splits rows fetched with limit + 1 into the page and whether there is more', () => {
    expect(splitPage(rows, 2)).toEqual({ items: rows.slice(0, 2), hasMore: true });
    expect(splitPage(rows, 3)).toEqual({ items: rows, hasMore: false });
    expect(splitPage([], 3)).toEqual({ items: [], hasMore: false });
  });

  it("gives a next cursor only when there is more, naming the page's last row", () => {
    const page = keyset.page('calls', rows, 2, { filters: { f: 1 }, firmId: 'firm-a' }, (r) => r);
    expect(page.items).toEqual(rows.slice(0, 2));
    expect(page.hasMore).toBe(true);
    expect(keyset.decode('calls', page.nextCursor!, { f: 1 }, 'firm-a')).toEqual(rows[1]);
    expect(() => keyset.decode('calls', page.nextCursor!, { f: 1 }, 'firm-b')).toThrow(InvalidRequestError);
    expect(keyset.page('calls', rows, 3, { filters: { f: 1 }, firmId: 'firm-a' }, (r) => r)).toEqual({
      items: rows,
      hasMore: false,
      nextCursor: null,
    });
  });

  it('decodes no cursor as the first page and refuses a position that is not (time, id)', () => {
    expect(keyset.decode('calls', undefined, {}, 'firm-a')).toBeNull();
    const wrongShape = codec.encode('calls', ['not a time', 'a'], {}, 'firm-a');
    const tooLong = codec.encode('calls', ['2026-03-01T00:00:00.000Z', 'a', 'extra'], {}, 'firm-a');
    for (const cursor of [wrongShape, tooLong]) {
      expect(() => keyset.decode('calls', cursor, {}, 'firm-a')).toThrow(InvalidRequestError);
    }
  });
});
