import { QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';

/**
 * TypeORM releases a transaction's connection when the server ends the session between two of its
 * statements (an 'error' event while idle in transaction); the next statement, or the COMMIT, then fails
 * with one of these, and the server has rolled the transaction back. Only the database kernel knows TypeORM.
 */
export function isReleasedTransactionError(e: unknown): boolean {
  return e instanceof QueryRunnerProviderAlreadyReleasedError || e instanceof QueryRunnerAlreadyReleasedError;
}
