import { InvalidRequestError } from '../errors/problems';
import { CursorCodec } from './cursor';

const codec = new CursorCodec(Buffer.alloc(32, 1));
const FIRM = '6f1c2a3e-0000-4000-8000-000000000001';
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof InvalidRequestError) return { param: err.param, detail: err.detail };
    throw err;
  }
  throw new Error('accepted');
};

describe('cursor codec', () => {
  const filters = { category: 'sales', answered: true };

  it('round-trips a position bound to its kind and filters, whatever the filters order', () => {
    const cursor = codec.encode('calls', ['2026-03-02T15:04:05.000Z', 'call_1'], filters, FIRM);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(codec.decode('calls', cursor, { answered: true, category: 'sales' }, FIRM)).toEqual(['2026-03-02T15:04:05.000Z', 'call_1']);
    // Absent and undefined filters are the same filter set.
    expect(codec.decode('calls', codec.encode('calls', [1], { a: undefined }, FIRM), {}, FIRM)).toEqual([1]);
  });

  it('refuses a tampered payload or MAC, another kind, and garbage, naming cursor', () => {
    const cursor = codec.encode('calls', ['x', 'y'], filters, FIRM);
    const [payload, mac] = cursor.split('.');
    const forged = Buffer.from(
      JSON.stringify({ k: 'calls', p: ['z', 'y'], f: JSON.parse(Buffer.from(payload, 'base64url').toString()).f }),
    );
    const invalid = { param: 'cursor', detail: 'cursor is not valid; pass next_cursor exactly as the previous page returned it.' };
    expect(refusal(() => codec.decode('calls', `${forged.toString('base64url')}.${mac}`, filters, FIRM))).toEqual(invalid);
    expect(refusal(() => codec.decode('calls', `${payload}.${mac.slice(0, -1)}A`, filters, FIRM))).toEqual(invalid);
    expect(refusal(() => codec.decode('leads', cursor, filters, FIRM))).toEqual(invalid);
    expect(refusal(() => codec.decode('calls', 'not-a-cursor', filters, FIRM))).toEqual(invalid);
    expect(refusal(() => new CursorCodec(Buffer.alloc(32, 2)).decode('calls', cursor, filters, FIRM))).toEqual(invalid);
  });

  it('refuses a cursor issued to another firm exactly like a tampered one', () => {
    const cursor = codec.encode('calls', ['x', 'y'], filters, FIRM);
    expect(refusal(() => codec.decode('calls', cursor, filters, '6f1c2a3e-0000-4000-8000-000000000002'))).toEqual({
      param: 'cursor',
      detail: 'cursor is not valid; pass next_cursor exactly as the previous page returned it.',
    });
  });

  it('refuses a cursor used with other filters, saying so', () => {
    const cursor = codec.encode('calls', ['x', 'y'], filters, FIRM);
    expect(refusal(() => codec.decode('calls', cursor, { category: 'other', answered: true }, FIRM))).toEqual({
      param: 'cursor',
      detail: 'cursor was issued for other filters; repeat the same filters with next_cursor, or start again without a cursor.',
    });
  });
});
