const UNIT_MS = { second: 1_000, minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

/**
 * A rule's duration in the words the document and the CLI state it (`one hour`, `15 minutes`, `30 days`), from the
 * constant that enforces it, so the text cannot fall behind the rule. Throws on a duration that is not a whole number
 * of `unit`s: the text would have to round what the service enforces.
 */
export function durationText(ms: number, unit: keyof typeof UNIT_MS): string {
  const count = wholeUnits(ms, unit);
  return count === 1 ? `one ${unit}` : `${count} ${unit}s`;
}

/** The same duration before a noun: `a one-hour link`, `a 15-minute link`. */
export function durationAdjective(ms: number, unit: keyof typeof UNIT_MS): string {
  const count = wholeUnits(ms, unit);
  return `${count === 1 ? 'one' : count}-${unit}`;
}

function wholeUnits(ms: number, unit: keyof typeof UNIT_MS): number {
  const count = ms / UNIT_MS[unit];
  if (!Number.isInteger(count) || count < 1) throw new Error(`${ms} ms is not a whole number of ${unit}s`);
  return count;
}
