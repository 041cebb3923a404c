/** What a code is answered with: a title for people, its HTTP status, and headers every answer with it carries. */
export interface ErrorAnswer {
  readonly title: string;
  readonly status: number;
  readonly headers?: (e: DomainError) => Record<string, string>;
}

/**
 * One owner's codes, each with its answer: the kernel's (error-codes.ts) or one context's (`<context>.errors.ts`,
 * as twenty's `exceptions/` do). A code is the public contract integrators branch on: add codes, never rename one.
 */
export type ErrorCodes = Readonly<Record<string, ErrorAnswer>>;

/**
 * What the service refuses, wherever it is called from: a public `code` of its owner's table, a `detail` for people
 * and the extra members of the answer (`param`, `errors`, `lead`, ...). No HTTP status of its own: the HTTP filter
 * answers the status its code's table gives (http-answers.ts), the CLI its message and exit code
 * (src/cli/failures.ts). `headers` are set only by the HTTP stages that raise a refusal themselves (Allow,
 * Connection: close, the rate limit's). Extend `errorsOf(TABLE)`, so `code` is one of that table's.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;

  constructor(
    readonly detail: string,
    /** Extra members of the problem document (e.g. `param`, `lead`). */
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
    options?: { cause?: unknown },
  ) {
    super(detail, options);
    this.name = new.target.name;
  }

  /** The table that declares this error's code. */
  protected abstract codes(): ErrorCodes;

  /** Its code's answer; undefined for a code its table does not declare (answered as `internal_error`). */
  get answer(): ErrorAnswer | undefined {
    const codes = this.codes();
    return Object.hasOwn(codes, this.code) ? codes[this.code] : undefined;
  }

  get title(): string {
    // An undeclared code never reaches a body: the filter answers it as internal_error.
    return this.answer?.title ?? 'Internal error.';
  }

  /** The same refusal with one more response header (e.g. `Connection: close` after a refused upload). */
  withHeader(name: string, value: string): this {
    const copy = Object.create(Object.getPrototypeOf(this)) as this;
    return Object.assign(copy, this, { headers: { ...this.headers, [name]: value } });
  }
}

/** The base class of one table's errors: a `code` the table does not declare fails the build. */
export function errorsOf<const T extends ErrorCodes>(table: T) {
  abstract class TableError extends DomainError {
    abstract override readonly code: keyof T & string;
    protected override codes(): ErrorCodes {
      return table;
    }
  }
  return TableError;
}

/** Every code of the given tables, each declared once (the document's `code` enum, the tests' full list). */
export function allErrorCodes(...tables: ErrorCodes[]): ErrorCodes {
  const all: Record<string, ErrorAnswer> = {};
  for (const table of tables) {
    for (const [code, answer] of Object.entries(table)) {
      if (Object.hasOwn(all, code)) throw new Error(`error code ${code} is declared twice`);
      all[code] = answer;
    }
  }
  return all;
}
