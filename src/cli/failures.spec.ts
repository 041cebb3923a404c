import { errorsOf } from '../common/errors/domain-error';
import { ERROR_CODES, KernelError, type ErrorCode } from '../common/errors/error-codes';
import { InvalidInputError } from '../common/errors/invalid-input';
import { NotFoundError } from '../common/errors/problems';
import { DocumentInvalidError } from '../common/validation/validate-document';
import { ConfigError } from '../config/app-config';
import { CliError } from './command';
import { CLI_FAILURES, cliFailure } from './failures';

class Refusal extends KernelError {
  constructor(readonly code: ErrorCode) {
    super('refused');
  }
}

/** A context's own code (as `src/leads/leads.errors.ts` declares `status_conflict`). */
class ContextRefusal extends errorsOf({ order_conflict: { title: 'The order changed.', status: 409 } }) {
  readonly code = 'order_conflict';
  constructor() {
    super('the order changed');
  }
}

describe('the CLI table: problem code to message and exit code', () => {
  it('has a row for every public code: a refusal shows its detail and exits 1; an outage or a bug is the generic failure', () => {
    expect(Object.keys(CLI_FAILURES).sort()).toEqual(Object.keys(ERROR_CODES).sort());
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      const generic = code === 'service_unavailable' || code === 'internal_error';
      expect([code, cliFailure(new Refusal(code))]).toEqual([code, generic ? null : { message: 'refused', exitCode: 1 }]);
    }
  });

  it("shows a context's own refusal's detail and exits 1", () => {
    expect(cliFailure(new ContextRefusal())).toEqual({ message: 'the order changed', exitCode: 1 });
  });

  it('words a refused field with the flag that set it', () => {
    expect(cliFailure(new InvalidInputError('url', 'must be an https URL'))).toEqual({
      message: '--url must be an https URL',
      exitCode: 1,
    });
    expect(cliFailure(new InvalidInputError('types', ': x cannot be subscribed to'))).toEqual({
      message: '--types: x cannot be subscribed to',
      exitCode: 1,
    });
    expect(cliFailure(new InvalidInputError('slug', '"A" must be lowercase'))).toEqual({
      message: 'slug "A" must be lowercase',
      exitCode: 1,
    });
    expect(cliFailure(new InvalidInputError(null, 'too many keys'))).toEqual({ message: 'too many keys', exitCode: 1 });
  });

  it('prefixes an invalid document and shows a not-found detail as the service wrote it', () => {
    expect(cliFailure(new DocumentInvalidError([{ path: 'a', message: 'is bad' }]))).toEqual({
      message: 'invalid document: a: is bad',
      exitCode: 1,
    });
    expect(cliFailure(new NotFoundError('The firm', 'no firm with id "x"'))).toEqual({ message: 'no firm with id "x"', exitCode: 1 });
  });

  it("keeps the CLI's own errors' exit codes", () => {
    expect(cliFailure(new CliError('--org is required', 2))).toEqual({ message: '--org is required', exitCode: 2 });
    expect(cliFailure(new ConfigError('DATABASE_URL is required'))).toEqual({ message: 'DATABASE_URL is required', exitCode: 1 });
  });

  it('answers an unknown code, or an error that is no refusal, with the generic failure', () => {
    expect(cliFailure(new Refusal('no_such_code' as ErrorCode))).toBeNull();
    expect(cliFailure(new Error('boom'))).toBeNull();
    expect(cliFailure('thrown string')).toBeNull();
  });
});
