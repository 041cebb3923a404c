/**
 * Positional parameters for a statement assembled from optional filters:
 * `add(value)` stores the value and gives back its placeholder, so the SQL
 * stays written out where it is built and every value goes as a parameter.
 */
export class SqlParams {
  readonly values: unknown[];

  constructor(...first: unknown[]) {
    this.values = [...first];
  }

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * A condition written by one file for a statement another builds: it adds its values to that statement's `params`
 * (``(params) => `occurred_at < ${params.add(cutoff)}` ``), so neither file writes a placeholder by number.
 */
export type SqlCondition = (params: SqlParams) => string;
