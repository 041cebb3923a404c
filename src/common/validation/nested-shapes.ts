import { getMetadataStorage, IS_OPTIONAL, ValidationTypes } from 'class-validator';
import { nestedTypeOf } from './nested.js';

type Metatype = new (...args: never[]) => unknown;

/** A member a DTO declares as one nested object (`@Nested(() => Dto)`) or a list of them (`@Nested(() => Dto, { each: true })`). */
export interface NestedMember {
  name: string;
  /** A list of objects rather than one object. */
  list: boolean;
  /** `@IsOptional()`: null is accepted (and so is omission). Without it only omission is, and only when the class says so. */
  nullable: boolean;
  type: Metatype;
}

const nestedByClass = new WeakMap<Metatype, NestedMember[]>();

/** The nested members a class declares, read once from its decorators. */
export function nestedMembers(metatype: Metatype): NestedMember[] {
  let members = nestedByClass.get(metatype);
  if (!members) {
    const metadata = getMetadataStorage().getTargetValidationMetadatas(metatype, '', true, false);
    const optional = new Set(metadata.filter((m) => m.name === IS_OPTIONAL).map((m) => m.propertyName));
    members = metadata
      .filter((m) => m.type === ValidationTypes.NESTED_VALIDATION)
      .flatMap((m) => {
        const type = nestedTypeOf(metatype, m.propertyName);
        return type ? [{ name: m.propertyName, list: m.each === true, nullable: optional.has(m.propertyName), type }] : [];
      });
    nestedByClass.set(metatype, members);
  }
  return members;
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Where a document's value does not have the shape its DTO declares: an
 * object member that is an array, a string, a number (or null where the
 * member is not nullable), a list that is not an array, a list item that is
 * not an object. class-validator lets some of these through (it validates an
 * array given for one object item by item, so `[]` passes, and skips what is
 * undefined) and class-transformer then empties them, so they are refused
 * here, before either runs, naming the member's path.
 */
export function shapeProblems(value: Record<string, unknown>, metatype: Metatype, path = ''): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  for (const member of nestedMembers(metatype)) {
    if (!Object.prototype.hasOwnProperty.call(value, member.name)) continue;
    const v = value[member.name];
    const at = path ? `${path}.${member.name}` : member.name;
    if (v === undefined || (v === null && member.nullable)) continue;
    if (member.list) {
      if (!Array.isArray(v)) {
        problems.push({ path: at, message: 'must be an array' });
        continue;
      }
      v.forEach((item: unknown, i) => {
        if (isRecord(item)) problems.push(...shapeProblems(item, member.type, `${at}[${i}]`));
        else problems.push({ path: `${at}[${i}]`, message: 'must be an object' });
      });
    } else if (isRecord(v)) {
      problems.push(...shapeProblems(v, member.type, at));
    } else {
      problems.push({ path: at, message: member.nullable ? 'must be an object or null' : 'must be an object' });
    }
  }
  return problems;
}
