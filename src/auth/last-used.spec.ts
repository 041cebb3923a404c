import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { LastUsedRecorder } from './last-used.js';

/** last_used_at: noted at most once a minute per key, written in one batch off the request path, failures counted. */
describe('LastUsedRecorder', () => {
  const at = (s: number) => new Date(Date.parse('2026-05-01T00:00:00Z') + s * 1000);

  it('writes the uses of several keys in one batch, each key at most once a minute', async () => {
    const writes: Map<string, Date>[] = [];
    const recorder = new LastUsedRecorder(
      (uses) => Promise.resolve(void writes.push(uses)),
      () => undefined,
      () => false,
    );
    recorder.note('a', at(0));
    recorder.note('a', at(30));
    recorder.note('b', at(31));
    await recorder.flush();
    recorder.note('a', at(59));
    recorder.note('a', at(61));
    await recorder.flush();
    expect(writes).toEqual([
      new Map([
        ['a', at(0)],
        ['b', at(31)],
      ]),
      new Map([['a', at(61)]]),
    ]);
  });

  it('counts a failed write, and the next use of the key writes again', async () => {
    const failed: number[] = [];
    let fail = true;
    const written: string[] = [];
    const recorder = new LastUsedRecorder(
      (uses) => (fail ? Promise.reject(new Error('database down')) : Promise.resolve(void written.push(...uses.keys()))),
      (n) => failed.push(n),
      () => false,
    );
    recorder.note('a', at(0));
    recorder.note('b', at(0));
    await recorder.flush();
    fail = false;
    recorder.note('a', at(1));
    await recorder.flush();
    expect({ failed, written }).toEqual({ failed: [2], written: ['a'] });
  });

  it('a write failed by an outage is counted, and left to the outage to log (once), not logged per write', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const failed: number[] = [];
      const unreachable = new Error('timeout exceeded when trying to connect');
      const reported: unknown[] = [];
      const recorder = new LastUsedRecorder(
        (uses) => Promise.reject(uses.has('down') ? unreachable : new Error('deadlock detected')),
        (n) => failed.push(n),
        (err) => (reported.push(err), err === unreachable),
      );
      recorder.note('down', at(0));
      await recorder.flush();
      expect({ failed, reported, warned: warn.mock.calls.length }).toEqual({ failed: [1], reported: [unreachable], warned: 0 });
      recorder.note('other', at(0));
      await recorder.flush();
      expect(warn.mock.calls.map((c) => c[1])).toEqual(['could not record last_used_at']);
    } finally {
      warn.mockRestore();
    }
  });
});
