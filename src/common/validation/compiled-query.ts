import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, ValidationTypes, type MetadataStorage, type ValidationArguments } from 'class-validator';
import { queryTransformsOf, type QueryValueTransform } from './query-transforms.js';

type Metatype = new (...args: never[]) => unknown;
type Instance = Record<string, unknown>;
type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];

interface MemberCheck {
  /** The member's transforms (QueryTransform), in declaration order. */
  transforms: QueryValueTransform[];
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
 * same transforms, but none of class-transformer's and class-validator's
 * per-request walking, error objects and promises. It only ever accepts: on
 * the first failed check it answers undefined and the validation pipe runs
 * class-transformer + class-validator, which word the 400 as before. A DTO
 * using anything else (groups, `each`, nesting, async) gets no compiled check
 * (null), and so does one class-transformer reads differently (a @Type,
 * @Expose or @Exclude, a @Transform not declared with QueryTransform): the
 * compiled check is tried once against plainToInstance, the public way to
 * ask class-transformer, and dropped on any difference.
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
  const build = (query: Record<string, unknown>): Instance | undefined => {
    const instance = new metatype() as Instance;
    for (const key of Object.keys(query)) {
      const raw = query[key];
      const member = members.get(key);
      if (typeof raw !== 'string' || !member) return undefined;
      let value: unknown = raw;
      for (const transform of member.transforms) value = transform(value);
      instance[key] = value;
    }
    return instance;
  };
  if (!readsLikeClassTransformer(metatype, [...members.keys()], build)) return null;
  return (query) => {
    const instance = build(query);
    if (!instance) return undefined;
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

/** Texts every member is sent as, once each: a transform that changes none of them changes no query either. */
const PROBES = ['7', ' Ab ', 'true', '', '2026-05-01T00:00:00Z'];

/** The instance built here must equal class-transformer's for every probe. */
function readsLikeClassTransformer(metatype: Metatype, names: string[], build: (q: Record<string, unknown>) => Instance | undefined) {
  return PROBES.every((text) => {
    const probe = Object.fromEntries(names.map((name) => [name, text]));
    const ours = build(probe);
    const theirs = plainToInstance(metatype, probe) as Instance;
    const keys = new Set([...Object.keys(ours ?? {}), ...Object.keys(theirs)]);
    return ours !== undefined && [...keys].every((k) => Object.is(ours[k], theirs[k]));
  });
}

/** Each declared member's transforms, conditions and constraints; null when the DTO uses anything this does not reproduce. */
function readMembers(metatype: Metatype): Map<string, MemberCheck> | null {
  const storage = getMetadataStorage();
  const members = new Map<string, MemberCheck>();
  for (const metadata of storage.getTargetValidationMetadatas(metatype, '', false, false)) {
    if (metadata.each || metadata.groups?.length || metadata.always || metadata.validateIf) return null;
    const name = metadata.propertyName;
    let member = members.get(name);
    if (!member) {
      member = { transforms: queryTransformsOf(metatype, name), conditions: [], constraints: [] };
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
