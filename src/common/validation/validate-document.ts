import { plainToInstance } from 'class-transformer';
import { KernelError } from '../errors/error-codes.js';
import { validateSync, type ValidationError } from 'class-validator';
import { undeclaredMembers } from './declared-members.js';
import { shapeProblems } from './nested-shapes.js';
import { findUnsafeString } from './string-safety.js';

/** A document (a call, the receptionist settings) breaks its schema: every problem found, the first as `param`. */
export class DocumentInvalidError extends KernelError {
  readonly code = 'invalid_request';
  constructor(readonly problems: { path: string; message: string }[]) {
    super(problems.map((p) => `${p.path}: ${p.message}`).join('; '), {
      param: problems[0]?.path,
      errors: problems.map((p) => ({ param: p.path, message: p.message })),
    });
  }
}

export function flattenValidationErrors(errors: ValidationError[], parent = ''): { path: string; message: string }[] {
  return errors.flatMap((e) => {
    const path = parent ? (/^\d+$/.test(e.property) ? `${parent}[${e.property}]` : `${parent}.${e.property}`) : e.property;
    const own = Object.values(e.constraints ?? {}).map((message) => ({
      path,
      message: message.startsWith('property ') ? 'is not allowed' : message,
    }));
    return [...own, ...flattenValidationErrors(e.children ?? [], path)];
  });
}

/** Validates a plain JSON document against a DTO class, refusing unknown members and members of the wrong shape. */
export function validateDocument<T extends object>(cls: new () => T, plain: unknown, path = ''): T {
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
    throw new DocumentInvalidError([{ path: path || '(document)', message: 'must be a JSON object' }]);
  }
  const unsafe = findUnsafeString(plain, path);
  if (unsafe) throw new DocumentInvalidError([unsafe]);
  // Before class-validator, which takes an array for one nested object, and class-transformer, which then empties it.
  const misshapen = shapeProblems(plain as Record<string, unknown>, cls, path);
  if (misshapen.length) throw new DocumentInvalidError(misshapen);
  // Before plainToInstance, which silently drops members named like Object.prototype's (constructor, valueOf, ...).
  const undeclared = undeclaredMembers(plain, cls, path);
  if (undeclared.length) throw new DocumentInvalidError(undeclared.map((at) => ({ path: at, message: 'is not allowed' })));
  const instance = plainToInstance(cls, plain);
  const errors = validateSync(instance as object, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
  if (errors.length) throw new DocumentInvalidError(flattenValidationErrors(errors, path));
  return instance;
}
