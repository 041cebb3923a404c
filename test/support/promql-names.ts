/** PromQL words that are not metric names. */
const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'offset',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads: what is left once strings,
 * label matchers, ranges and grouping clauses are removed, minus function
 * calls (a name followed by a parenthesis) and keywords. Enough for the
 * expressions of alert rules and dashboards, which is all it is used on.
 */
export function metricNames(expr: string): Set<string> {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const m of bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const calls = bare
      .slice((m.index ?? 0) + m[0].length)
      .trimStart()
      .startsWith('(');
    if (!calls && !KEYWORDS.has(m[0].toLowerCase())) names.add(m[0]);
  }
  return names;
}

/** The series names a Prometheus text exposition offers: every `# TYPE` name, with a histogram's and summary's own series. */
export function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(m[1]);
    if (m[2] === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(m[1] + s);
    if (m[2] === 'summary') for (const s of ['_sum', '_count']) names.add(m[1] + s);
  }
  return names;
}
