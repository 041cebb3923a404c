import { Type } from 'class-transformer';
import { ValidateNested } from 'class-validator';

type Metatype = new (...args: never[]) => unknown;

const NESTED_TYPE = Symbol('validation:nestedType');

/**
 * A member holding one object of `type`, or with `{ each: true }` a list of
 * them: class-validator checks it (@ValidateNested), class-transformer builds
 * it (@Type), and the class keeps `type` in its own metadata, where the shape
 * and member checks (nested-shapes.ts, declared-members.ts) read it:
 * class-transformer keeps its own behind no public API.
 */
export function Nested(type: () => Metatype, options?: { each?: boolean }): PropertyDecorator {
  return (target, key) => {
    ValidateNested(options)(target, key);
    Type(type)(target, key);
    Reflect.defineMetadata(NESTED_TYPE, type, target, key);
  };
}

/** The class a member declared with Nested holds, if it is one. */
export function nestedTypeOf(metatype: Metatype, member: string): Metatype | undefined {
  return (Reflect.getMetadata(NESTED_TYPE, metatype.prototype as object, member) as (() => Metatype) | undefined)?.();
}
