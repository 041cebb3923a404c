/** The q-quantile of `xs` (nearest rank, on a sorted copy); NaN when there are none. */
export const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
};

/** How many, and the p50 and p99, of a set of timings. */
export const latencyStats = (ms) => ({ n: ms.length, p50: quantile(ms, 0.5), p99: quantile(ms, 0.99) });
