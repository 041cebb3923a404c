import { SpanKind, type Span } from '@opentelemetry/api';
import { currentTrace, markFailed } from './tracing.js';

/** Long statements (a batch insert) are cut: the text is for finding the statement, not replaying it. */
const MAX_STATEMENT_CHARS = 2000;
const PATCHED = Symbol.for('receptionist-api.sql-spans');

type QueryFn = (this: unknown, ...args: unknown[]) => unknown;

interface PgClientClass {
  prototype: { query: QueryFn; [PATCHED]?: true };
}

function statementText(arg: unknown): string | null {
  if (typeof arg === 'string') return arg;
  const text = (arg as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : null;
}

function startStatementSpan(text: string): Span | null {
  const current = currentTrace();
  if (!current) return null;
  const operation = /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
  // The statement's text only: parameter values travel apart ($1, $2...) and are never recorded.
  return current.tracing.startSpan(operation, {
    kind: SpanKind.CLIENT,
    attributes: {
      'db.system.name': 'postgresql',
      'db.operation.name': operation,
      'db.query.text': text.length > MAX_STATEMENT_CHARS ? text.slice(0, MAX_STATEMENT_CHARS) : text,
    },
  });
}

function endWhenSettled(span: Span, result: unknown): unknown {
  if (result && typeof (result as Promise<unknown>).then === 'function') {
    (result as Promise<unknown>).then(
      () => span.end(),
      (err: unknown) => {
        markFailed(span, err);
        span.end();
      },
    );
  } else {
    span.end();
  }
  return result;
}

/**
 * Each statement run on a pg client while a traced request or delivery is active becomes a child span of it
 * (TypeORM's query runners and `Database` both check clients out of the one pool, so patching the pool's client
 * class covers both). Outside a traced flow, or in an app with tracing off, the patched query only checks an
 * AsyncLocalStorage and calls the original. Installed once per client class, and only when tracing is on.
 */
export function traceSqlStatements(clientClass: PgClientClass): void {
  const proto = clientClass.prototype;
  if (proto[PATCHED]) return;
  const original = proto.query;
  proto[PATCHED] = true;
  proto.query = function tracedQuery(this: unknown, ...args: unknown[]): unknown {
    const text = currentTrace() ? statementText(args[0]) : null;
    const span = text === null ? null : startStatementSpan(text);
    if (!span) return original.apply(this, args);
    const callback = args[args.length - 1];
    if (typeof callback === 'function') {
      args[args.length - 1] = (err: unknown, ...rest: unknown[]) => {
        if (err) markFailed(span, err);
        span.end();
        return (callback as (...a: unknown[]) => unknown)(err, ...rest);
      };
    }
    try {
      return typeof callback === 'function' ? original.apply(this, args) : endWhenSettled(span, original.apply(this, args));
    } catch (err) {
      markFailed(span, err);
      span.end();
      throw err;
    }
  };
}
