/**
 * Hand-written statements, checked in as text (immich's `@GenerateSql`): a repository marks each method that runs
 * one, with the arguments to call it with; `npm run sql:generate` calls every marked method on a recording
 * connection and writes what it ran to the `.sql` file beside the repository (src/sql-snapshots.ts), and a unit test
 * fails when the code's statements and that file differ, so every change of SQL shows in a review's diff.
 */

/** Stands for the connection (a `Tx`, or the pool) among a case's arguments; the recorder takes its place. */
export const SQL = Symbol('the recording connection');

/** Placeholder values for a case's other arguments: statements are recorded, never run. */
export const DummyValue = {
  UUID: '00000000-0000-4000-8000-000000000000',
  TEXT: 'text',
  DATE: new Date('2026-01-01T00:00:00.000Z'),
  NUMBER: 1,
} as const;

export interface SqlCase {
  /** What this case shows, when a method has several (the filters of a list, say). */
  name?: string;
  /** The method's arguments; `SQL` where it takes a connection. */
  params: unknown[];
  /**
   * What every statement of the case returns: no row (default), one row whose every member is null, or this row
   * (for a method that reads what an earlier statement answered before it runs the next).
   */
  rows?: 'none' | 'one' | Record<string, unknown>;
}

export interface MarkedMethod {
  method: string;
  cases: SqlCase[];
}

const marked = new Map<abstract new (...args: never[]) => object, MarkedMethod[]>();

/** Marks a method that runs hand-written SQL, with the cases to record it by (at least one). */
export function GenerateSql(...cases: [SqlCase, ...SqlCase[]]): MethodDecorator {
  return (target, method) => {
    const owner = (target as { constructor: abstract new (...args: never[]) => object }).constructor;
    marked.set(owner, [...(marked.get(owner) ?? []), { method: String(method), cases }]);
  };
}

/** Every class with marked methods among those loaded, and its methods in the order they are declared. */
export function markedClasses(): Map<abstract new (...args: never[]) => object, MarkedMethod[]> {
  return new Map(marked);
}

/** One statement as a marked method ran it. */
export interface RecordedStatement {
  name?: string;
  text: string;
}

/** A row whose every member is null (and whose members' members too, as far as code reads them: none). */
const NULL_ROW: object = new Proxy({}, { get: (_target, key) => (key === 'then' ? undefined : null) });

/**
 * Stands in for the pool and for a transaction: records each statement's text (and prepared name) instead of
 * running it, and answers with no rows or one null row; a TypeORM repository is not hand-written SQL and fails.
 */
export class SqlRecorder {
  readonly statements: RecordedStatement[] = [];

  constructor(private readonly rows: NonNullable<SqlCase['rows']> = 'none') {}

  async query(first: unknown, second?: unknown): Promise<object[]> {
    this.statements.push({ text: typeof first === 'string' ? first : (second as string) });
    return this.answer();
  }

  async execute(text: string): Promise<number> {
    this.statements.push({ text });
    return this.rows === 'none' ? 0 : 1;
  }

  async prepared(name: string, second: unknown, third?: unknown): Promise<object[]> {
    this.statements.push({ name, text: typeof second === 'string' ? second : (third as string) });
    return this.answer();
  }

  async executePrepared(name: string, text: string): Promise<number> {
    this.statements.push({ name, text });
    return this.rows === 'none' ? 0 : 1;
  }

  transaction<T>(first: unknown, second?: (tx: SqlRecorder) => Promise<T>): Promise<T> {
    const work = (typeof first === 'function' ? first : second) as (tx: SqlRecorder) => Promise<T>;
    return work(this);
  }

  getRepository(): never {
    throw new Error('a TypeORM repository runs no hand-written statement');
  }

  private answer(): object[] {
    if (this.rows === 'none') return [];
    return [this.rows === 'one' ? NULL_ROW : this.rows];
  }
}
