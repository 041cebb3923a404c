/**
 * The service's `Queryable` (src/database/sql.ts) over one node-postgres client, for a bench that calls a compiled
 * repository without the service around it: `query(LIST, text, values)` or `query(text, values)`, and `prepared`
 * alike, with an optional hook around each statement (to time it, or to rewrite it: EXPLAIN).
 */
export function pgQueryable(client, around = (config, run) => run(config)) {
  const run = (config) => around(config, (c) => client.query(c));
  const textAndValues = (first, second, third) => (typeof first === 'string' ? [first, second] : [second, third]);
  return {
    query: async (first, second, third) => {
      const [text, values] = textAndValues(first, second, third);
      return (await run({ text, values })).rows;
    },
    execute: async (text, values) => (await run({ text, values })).rowCount ?? 0,
    prepared: async (name, first, second, third) => {
      const [text, values] = textAndValues(first, second, third);
      return (await run({ name, text, values })).rows;
    },
    executePrepared: async (name, text, values) => (await run({ name, text, values })).rowCount ?? 0,
  };
}
