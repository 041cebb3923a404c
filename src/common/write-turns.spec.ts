import { WriteTurns } from './write-turns';

/** A piece of work the test finishes when it chooses. */
function held<T>(value: T): { work: () => Promise<T>; started: () => boolean; finish: () => void; fail: () => void } {
  let started = false;
  let settle!: (ok: boolean) => void;
  const gate = new Promise<boolean>((resolve) => (settle = resolve));
  return {
    work: async () => {
      started = true;
      if (!(await gate)) throw new Error('failed');
      return value;
    },
    started: () => started,
    finish: () => settle(true),
    fail: () => settle(false),
  };
}

const ticks = () => new Promise((resolve) => setImmediate(resolve));

describe('WriteTurns', () => {
  it('runs the writers of one resource one at a time, first come first served, counting those that wait', async () => {
    const turns = new WriteTurns();
    const [a, b, c] = [held('a'), held('b'), held('c')];
    const done: string[] = [];
    const runs = [a, b, c].map((w) => turns.run('call:1', w.work).then((v) => void done.push(v)));
    await ticks();
    expect([a.started(), b.started(), c.started(), turns.waiting]).toEqual([true, false, false, 2]);
    c.finish(); // finished early, still waits for its turn
    b.finish();
    await ticks();
    expect([b.started(), c.started(), done]).toEqual([false, false, []]);
    a.finish();
    await Promise.all(runs);
    expect(done).toEqual(['a', 'b', 'c']);
    expect(turns.waiting).toBe(0);
  });

  it('lets writers of other resources run at once', async () => {
    const turns = new WriteTurns();
    const [a, b] = [held(1), held(2)];
    const runs = [turns.run('lead:1', a.work), turns.run('lead:2', b.work)];
    await ticks();
    expect([a.started(), b.started(), turns.waiting]).toEqual([true, true, 0]);
    a.finish();
    b.finish();
    expect(await Promise.all(runs)).toEqual([1, 2]);
  });

  it('passes the turn on when a writer fails, which fails alone', async () => {
    const turns = new WriteTurns();
    const [a, b] = [held(1), held(2)];
    const first = turns.run('endpoint:1', a.work);
    const second = turns.run('endpoint:1', b.work);
    a.fail();
    await expect(first).rejects.toThrow('failed');
    await ticks();
    expect(b.started()).toBe(true);
    b.finish();
    await expect(second).resolves.toBe(2);
    // Nothing is left in line: a later writer starts at once.
    const c = held(3);
    const third = turns.run('endpoint:1', c.work);
    await ticks();
    expect(c.started()).toBe(true);
    c.finish();
    await third;
  });
});
