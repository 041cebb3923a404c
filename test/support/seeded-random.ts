/**
 * The one source of random choices in tests: a seeded stream (mulberry32), its seed printed, so a failing run
 * can be replayed. TEST_SEED=<n> replays or varies every file's choices (test/fuzz.e2e.spec.ts keeps FUZZ_SEED
 * for fast-check). Random ids that only need to be unique are not choices and do not come from here.
 */
export interface SeededRandom {
  readonly seed: number;
  /** A number in [0, 1), like Math.random(). */
  next(): number;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
  /** A copy in a random order (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[];
}

const DEFAULT_SEED = 20_261_125;

export function seededRandom(label: string): SeededRandom {
  const seed = process.env.TEST_SEED ? Number(process.env.TEST_SEED) : DEFAULT_SEED;
  process.stderr.write(`${label}: seed ${seed} (replay with TEST_SEED=${seed})\n`);
  let state = seed | 0;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    seed,
    next,
    pick: (items) => items[Math.floor(next() * items.length)],
    shuffle: (items) => {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
  };
}
