import { Transform } from 'class-transformer';

/** How a query member's text becomes its value (`limit=20` to 20), applied before its checks. */
export type QueryValueTransform = (value: unknown) => unknown;

const QUERY_TRANSFORMS = Symbol('query:transforms');

/**
 * class-transformer's @Transform for a query member, with the function also
 * kept in the class's own metadata, where the compiled query check
 * (compiled-query.ts) reads it: class-transformer keeps its metadata behind
 * no public API.
 */
export function QueryTransform(transform: QueryValueTransform): PropertyDecorator {
  return (target, key) => {
    Transform(({ value }) => transform(value))(target, key);
    const earlier = (Reflect.getMetadata(QUERY_TRANSFORMS, target, key) as QueryValueTransform[] | undefined) ?? [];
    Reflect.defineMetadata(QUERY_TRANSFORMS, [...earlier, transform], target, key);
  };
}

/** The transforms of a member declared with QueryTransform, in the order class-transformer applies them. */
export function queryTransformsOf(metatype: new (...args: never[]) => unknown, member: string): QueryValueTransform[] {
  return (Reflect.getMetadata(QUERY_TRANSFORMS, metatype.prototype as object, member) as QueryValueTransform[] | undefined) ?? [];
}
