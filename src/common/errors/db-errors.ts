import { isReleasedTransactionError } from '../../database/released-transaction.js';

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  driverError?: ErrorLike;
  cause?: ErrorLike;
}

/** True for errors that mean "the database is not reachable right now" (answered 503, not 500). */
export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  // An error's members as drivers set them (pg: code; TypeORM: driverError); any may be missing.
  let e = err as ErrorLike | undefined;
  while (e && typeof e === 'object' && !seen.has(e)) {
    seen.add(e);
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH'].includes(code)) return true;
    // PostgreSQL: 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 08xxx connection exceptions,
    // 53300 too many connections, 57014 statement cancelled (DATABASE_STATEMENT_TIMEOUT ran out).
    // 25006 read_only_sql_transaction: a standby not yet promoted, or a primary turned read-only during a failover.
    if (code && (/^08/.test(code) || ['57P01', '57P02', '57P03', '53300', '57014', '25006'].includes(code))) return true;
    // The process has seen a newer history of the database than this server's (src/database/history-fence.ts).
    if (code === 'stale_history') return true;
    // The server ended the session inside a transaction: the next statement or the COMMIT fails, rolled back.
    if (isReleasedTransactionError(e)) return true;
    const msg: string = typeof e.message === 'string' ? e.message : '';
    if (
      /Connection terminated|connection timeout|Query read timeout|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(
        msg,
      )
    )
      return true;
    e = e.driverError ?? e.cause;
  }
  return false;
}
