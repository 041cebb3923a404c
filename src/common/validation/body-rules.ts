import type { OpenAPIObject } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';

type Schema = Record<string, unknown>;

const ONE_OF = Symbol('body:requireOneOf');
/** Schema keywords of body classes that no property decorator states (rules across members), by class. */
const SCHEMA_RULES = new Map<{ name: string }, Schema[]>();

/**
 * JSON Schema keywords the class's schema in the document gets beside its properties: the rules across
 * members the service enforces (if/then, not), written once here beside the code that enforces them.
 */
export function BodySchemaRules(rules: Schema): ClassDecorator {
  return (target) => void SCHEMA_RULES.set(target, [...(SCHEMA_RULES.get(target) ?? []), rules]);
}

/** A body class whose members are each optional, but at least one of `members` must be sent. */
export function RequireOneOf(...members: string[]): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(ONE_OF, members, target);
    // In an allOf, so generators that turn a top-level anyOf into `unknown` keep the body's type.
    BodySchemaRules({ allOf: [{ anyOf: members.map((m) => ({ required: [m] })) }] })(target);
  };
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

/**
 * The request bodies of a document as the validation pipe reads them: every
 * JSON body's schema closed (`additionalProperties: false`: an unknown
 * member is a 400) and given its class's rules across members, so a
 * validator or generated client built from the document accepts exactly the
 * bodies the service does. A class with rules but no schema of its name is
 * an error: its rules would silently be missing.
 */
export function documentRequestBodies(doc: OpenAPIObject): void {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, Schema>;
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item as Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>)) {
      const ref = op?.requestBody?.content?.['application/json']?.schema?.$ref;
      if (typeof ref === 'string') schemas[ref.split('/').pop()!].additionalProperties = false;
    }
  }
  for (const [metatype, rules] of SCHEMA_RULES) {
    const schema = schemas[metatype.name];
    if (!schema) throw new Error(`No schema named ${metatype.name} for its body rules`);
    for (const rule of rules) {
      const { allOf, ...rest } = rule;
      Object.assign(schema, rest);
      if (Array.isArray(allOf)) schema.allOf = [...((schema.allOf as Schema[] | undefined) ?? []), ...allOf];
    }
  }
}
