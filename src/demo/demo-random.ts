import { CATEGORIES } from '../calls/index.js';
import { WEIGHTS, type Category } from './demo-data.js';

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TOTAL_WEIGHT = Object.values(WEIGHTS).reduce((a, b) => a + b, 0);

/**
 * The seeded draws of one demo call. Each call gets its own stream (seed and
 * index), so a call's content never depends on what earlier calls drew.
 */
export class DemoRandom {
  private readonly next: () => number;

  constructor(seed: number, index: number) {
    this.next = mulberry32((seed + Math.imul(index + 1, 0x9e3779b1)) >>> 0);
  }

  float(): number {
    return this.next();
  }

  /** 0 to n - 1. */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** A category drawn by how often each calls a small PI practice. */
  category(): Category {
    let r = this.next() * TOTAL_WEIGHT;
    for (const c of CATEGORIES) {
      r -= WEIGHTS[c];
      if (r < 0) return c;
    }
    return 'other';
  }
}
