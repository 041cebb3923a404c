import { ValidationPipe, type ArgumentMetadata } from '@nestjs/common';
import type { ValidationError } from 'class-validator';
import { InvalidRequestError } from '../errors/problems.js';
import { compiledQueryCheck } from './compiled-query.js';
import { bodyMayBeOmitted, bodyMembers, listInWords, requiredOneOf } from './body-rules.js';
import { undeclaredMembers } from './declared-members.js';
import { flattenValidationErrors } from './validate-document.js';
import { findUnsafeString } from './string-safety.js';

/** What class-validator found, before it is worded for the part of the request it was in. */
class FoundProblems extends Error {
  constructor(readonly errors: ValidationError[]) {
    super('validation failed');
  }
}

type Metatype = new (...args: never[]) => unknown;
/** What validate-document.ts makes of class-validator's "property X should not exist". */
const NOT_ALLOWED = 'is not allowed';
const isObjectBody = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The one validation of query parameters and bodies: every DTO goes through
 * here, and the same DTO is what the OpenAPI document shows. Unknown members
 * are refused (a typo such as `updatedSince` would otherwise silently return
 * everything); the 400 names the first offending member in `param` and lists
 * them all in `errors`.
 */
export class ApiValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: true,
      // Off so an empty DTO (NoQueryDto) still validates; unknown members are refused by forbidNonWhitelisted.
      forbidUnknownValues: false,
      stopAtFirstError: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => new FoundProblems(errors),
    });
  }

  override async transform(sent: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const metatype = metadata.metatype as Metatype | undefined;
    const body = metadata.type === 'body' && metatype !== undefined && this.toValidate(metadata);
    // No body at all (none sent, or Content-Length: 0) where the body itself is optional: every member omitted.
    const value = body && sent === undefined && bodyMayBeOmitted(metatype) ? {} : sent;
    if (body && !isObjectBody(value)) throw notAnObject(metatype);
    if (metadata.type === 'query' || metadata.type === 'body') refuseUnsafeStrings(value);
    // Before class-transformer, which silently drops members named like Object.prototype's (constructor, valueOf, ...).
    if ((metadata.type === 'query' || body) && metatype !== undefined && this.toValidate(metadata)) {
      const undeclared = undeclaredMembers(value, metatype);
      if (undeclared.length)
        throw wordProblems(
          undeclared.map((path) => ({ path, message: NOT_ALLOWED })),
          body ? metatype : undefined,
        );
    }
    // Most queries are valid: a check compiled once per DTO accepts them; anything it does not accept goes the full way.
    const accepted =
      metadata.type === 'query' && metatype !== undefined && this.toValidate(metadata) ? acceptQuery(value, metatype) : undefined;
    if (accepted) return accepted;
    try {
      const out = await super.transform(value, metadata);
      if (body) checkOneOf(out as object, metatype);
      return out;
    } catch (err) {
      if (err instanceof FoundProblems) throw wordProblems(flattenValidationErrors(err.errors), body ? metatype : undefined);
      throw err;
    }
  }
}

function acceptQuery(query: unknown, metatype: Metatype): object | undefined {
  if (query === null || typeof query !== 'object') return undefined;
  return compiledQueryCheck(metatype)?.(query as Record<string, unknown>);
}

/** A check no DTO could express: no string anywhere may hold a NUL or a lone surrogate. */
function refuseUnsafeStrings(value: unknown): void {
  const unsafe = findUnsafeString(value);
  if (unsafe)
    throw new InvalidRequestError(`${unsafe.path} ${unsafe.message}.`, unsafe.path, {
      errors: [{ param: unsafe.path, message: unsafe.message }],
    });
}

function notAnObject(metatype: Metatype): InvalidRequestError {
  const oneOf = requiredOneOf(metatype);
  const hint = oneOf ? ` with at least one of ${oneOf.join(', ')}` : '';
  return new InvalidRequestError(`The body must be a JSON object${hint}.`, 'body');
}

function checkOneOf(body: object, metatype: Metatype): void {
  const oneOf = requiredOneOf(metatype);
  if (oneOf && !oneOf.some((m) => m in body)) throw new InvalidRequestError(`Send at least one of ${oneOf.join(', ')}.`, 'body');
}

/** Unknown members are worded for where they were: a query parameter, or a body member next to the ones the body takes. */
function wordProblems(errors: { path: string; message: string }[], bodyType: Metatype | undefined): InvalidRequestError {
  // One entry per distinct problem: IsInt, Min and Max of one parameter word the same refusal.
  const unique = [...new Map(errors.map((e) => [`${e.path}\u0000${e.message}`, e])).values()];
  const all = unique.map(({ path, message }) => {
    if (message !== NOT_ALLOWED) return { param: path, message };
    const known = bodyType ? `${path} is not allowed; the body takes ${listInWords(bodyMembers(bodyType))}` : undefined;
    return { param: path, message: known ?? `${path} is not a known parameter` };
  });
  const first = all[0] ?? { param: undefined, message: 'the request is not valid' };
  return new InvalidRequestError(`${first.message}.`, first.param, { errors: all });
}

export const apiValidationPipe = (): ApiValidationPipe => new ApiValidationPipe();
