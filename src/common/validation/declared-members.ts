import { DECORATORS } from '@nestjs/swagger';
import { bodyMembers } from './body-rules.js';
import { nestedTypeOf } from './nested.js';

type Metatype = new (...args: never[]) => unknown;

/** Where @nestjs/swagger keeps what the OpenAPI document shows of a class (the metadata keys it exports). */
const SWAGGER_PROPERTIES = DECORATORS.API_MODEL_PROPERTIES_ARRAY;
const SWAGGER_PROPERTY = DECORATORS.API_MODEL_PROPERTIES;
const NOT_A_DTO = new Set<unknown>([String, Number, Boolean, Object, Array, Date, Buffer, BigInt, Symbol, Function]);

/** Decorators run once, when a class is defined, so what a class declares is read once, not on every request. */
const declaredByClass = new WeakMap<Metatype, Set<string>>();

/** The members a class declares: those the OpenAPI document shows, and those class-validator checks. */
export function declaredMembers(metatype: Metatype): Set<string> {
  let declared = declaredByClass.get(metatype);
  if (!declared) {
    const documented = (Reflect.getMetadata(SWAGGER_PROPERTIES, metatype.prototype as object) as string[] | undefined) ?? [];
    declared = new Set([...documented.map((name) => name.replace(/^:/, '')), ...bodyMembers(metatype)]);
    declaredByClass.set(metatype, declared);
  }
  return declared;
}

/** A class declared for a member (by @Nested, or as the documented type, possibly lazy `() => Dto`) that itself declares members. */
function memberClass(metatype: Metatype, name: string): Metatype | undefined {
  const transformed = nestedTypeOf(metatype, name);
  let documented = (Reflect.getMetadata(SWAGGER_PROPERTY, metatype.prototype as object, name) as { type?: unknown } | undefined)?.type;
  if (typeof documented === 'function' && documented.prototype === undefined) documented = (documented as () => unknown)();
  for (const candidate of [transformed, documented]) {
    if (typeof candidate === 'function' && candidate.prototype !== undefined && !NOT_A_DTO.has(candidate)) {
      return candidate as Metatype;
    }
  }
  return undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !ArrayBuffer.isView(value);

const childPath = (parent: string, key: string) => (parent ? `${parent}.${key}` : key);

/**
 * The request's own member names that `metatype` does not declare, at every
 * level it declares a class for, as paths (`a.b`, `a[0].c`). Checked before
 * class-transformer runs: it silently drops members whose name is on
 * Object.prototype (`constructor`, `valueOf`, `__proto__`, ...), which the
 * whitelist then never sees.
 */
export function undeclaredMembers(value: unknown, metatype: Metatype, path = ''): string[] {
  if (!isRecord(value)) return [];
  const declared = declaredMembers(metatype);
  const found: string[] = [];
  for (const name of Object.keys(value)) {
    const at = childPath(path, name);
    if (!declared.has(name)) {
      found.push(at);
      continue;
    }
    const nested = memberClass(metatype, name);
    const member = value[name];
    if (nested === undefined) continue;
    // Items of a list too, even where one object is declared: class-validator validates each item of an array it is given.
    if (Array.isArray(member)) member.forEach((item, i) => found.push(...undeclaredMembers(item, nested, `${at}[${i}]`)));
    else found.push(...undeclaredMembers(member, nested, at));
  }
  return found;
}
