import { getMetadataStorage } from 'class-validator';

const ONE_OF = Symbol('body:requireOneOf');

/** A body class whose members are each optional, but at least one of `members` must be sent. */
export function RequireOneOf(...members: string[]): ClassDecorator {
  return (target) => Reflect.defineMetadata(ONE_OF, members, target);
}

const MAY_BE_OMITTED = Symbol('body:mayBeOmitted');

/** A body class whose members are each optional, and so is the body: a request without one is read as `{}`. */
export function BodyMayBeOmitted(): ClassDecorator {
  return (target) => Reflect.defineMetadata(MAY_BE_OMITTED, true, target);
}

export const bodyMayBeOmitted = (metatype: object): boolean => Reflect.getMetadata(MAY_BE_OMITTED, metatype) === true;

export function requiredOneOf(metatype: object): string[] | undefined {
  return Reflect.getMetadata(ONE_OF, metatype) as string[] | undefined;
}

/** The members a body class declares, in declaration order. */
export function bodyMembers(metatype: new (...args: never[]) => unknown): string[] {
  const names = getMetadataStorage()
    .getTargetValidationMetadatas(metatype, '', true, false)
    .map((m) => m.propertyName);
  return [...new Set(names)];
}

/** "a, b, c and d" */
export function listInWords(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
