import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';
import { getMetadataStorage, ValidationTypes, type ValidationArguments } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata.js';

type Metatype = new (...args: never[]) => unknown;
type Instance = Record<string, unknown>;

/** TransformationType.PLAIN_TO_CLASS (class-transformer's enum, not exported from its entry point). */
const PLAIN_TO_CLASS = 0;

interface MemberCheck {
  /** The member's @Transform functions, in declaration order (PLAIN_TO_CLASS only). */
  transforms: ((params: { value: unknown; key: string; obj: unknown; type: number; options: object }) => unknown)[];
  /** @IsOptional() and any other condition: all true, or the member's checks are skipped. */
  conditions: ((object: object, value: unknown) => boolean)[];
  /** The constraints class-validator would run, with their arguments. */
  constraints: { validate: (value: unknown, args: ValidationArguments) => unknown; metadata: ValidationMetadata }[];
}

/** Accepts a query (every member a string and declared) and returns the DTO instance, or undefined to let the full path decide. */
export type QueryCheck = (query: Record<string, unknown>) => object | undefined;

const checkByClass = new WeakMap<Metatype, QueryCheck | null>();

/**
 * The query DTO's decorators read once into a plain function: the same
 * constraint instances class-validator runs (so the same values pass), the
 * same @Transform functions, but none of class-transformer's and
 * class-validator's per-request walking, error objects and promises. It only
 * ever accepts: on the first failed check it answers undefined and the
 * validation pipe runs class-transformer + class-validator, which word the
 * 400 as before. A DTO using anything else (groups, `each`, nested, async,
 * @Expose/@Exclude/@Type) gets no compiled check (null).
 */
export function compiledQueryCheck(metatype: Metatype): QueryCheck | null {
  let check = checkByClass.get(metatype);
  if (check === undefined) {
    check = compile(metatype);
    checkByClass.set(metatype, check);
  }
  return check;
}

function compile(metatype: Metatype): QueryCheck | null {
  const members = readMembers(metatype);
  if (!members) return null;
  const targetName = metatype.name;
  return (query) => {
    const instance = new metatype() as Instance;
    for (const key of Object.keys(query)) {
      const raw = query[key];
      const member = members.get(key);
      if (typeof raw !== 'string' || !member) return undefined;
      let value: unknown = raw;
      for (const transform of member.transforms) value = transform({ value, key, obj: query, type: PLAIN_TO_CLASS, options: {} });
      instance[key] = value;
    }
    for (const [property, member] of members) {
      const value = instance[property];
      if (!member.conditions.every((condition) => condition(instance, value))) continue;
      for (const { validate, metadata } of member.constraints) {
        const args = { targetName, property, object: instance, value, constraints: metadata.constraints as unknown[] };
        if (validate(value, args) !== true) return undefined;
      }
    }
    return instance;
  };
}

/** Each declared member's transforms, conditions and constraints; null when the DTO uses anything this does not reproduce. */
function readMembers(metatype: Metatype): Map<string, MemberCheck> | null {
  if (defaultMetadataStorage.getExposedMetadatas(metatype).length || defaultMetadataStorage.getExcludedMetadatas(metatype).length)
    return null;
  const storage = getMetadataStorage();
  const members = new Map<string, MemberCheck>();
  for (const metadata of storage.getTargetValidationMetadatas(metatype, '', false, false)) {
    if (metadata.each || metadata.groups?.length || metadata.always || metadata.validateIf) return null;
    const name = metadata.propertyName;
    if (defaultMetadataStorage.findTypeMetadata(metatype, name)) return null;
    let member = members.get(name);
    if (!member) {
      const transforms = defaultMetadataStorage
        .findTransformMetadatas(metatype, name, PLAIN_TO_CLASS)
        .map((t) => t.transformFn as MemberCheck['transforms'][number]);
      member = { transforms, conditions: [], constraints: [] };
      members.set(name, member);
    }
    if (metadata.type === ValidationTypes.CONDITIONAL_VALIDATION) {
      member.conditions.push(metadata.constraints[0] as MemberCheck['conditions'][number]);
    } else if (metadata.type === ValidationTypes.CUSTOM_VALIDATION && metadata.constraintCls) {
      for (const constraint of storage.getTargetValidatorConstraints(metadata.constraintCls)) {
        if (constraint.async) return null;
        const instance = constraint.instance as { validate: MemberCheck['constraints'][number]['validate'] };
        member.constraints.push({ validate: instance.validate.bind(instance), metadata });
      }
    } else {
      return null;
    }
  }
  return members;
}
