import { ValidationPipe } from '@nestjs/common';
import { InvalidRequestError } from '../errors/problems.js';
import { flattenValidationErrors } from './validate-document.js';

/**
 * Query and body validation. Unknown members are refused (a typo such as
 * `updatedSince` would otherwise silently return everything), and the answer
 * names the offending parameter in `param`.
 */
export function apiValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    // Off so an empty DTO (NoQueryDto) still validates; unknown members are refused by forbidNonWhitelisted.
    forbidUnknownValues: false,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const all = flattenValidationErrors(errors).map(({ path, message }) => ({
        param: path,
        message: message === 'is not allowed' ? `${path} is not a known parameter` : message,
      }));
      const first = all[0] ?? { param: undefined, message: 'the request is not valid' };
      return new InvalidRequestError(`${first.message}.`, first.param, { errors: all });
    },
  });
}
