import { generateSchema, type ReferenceObject, type SchemaObject } from '@nestjs/swagger';
import { EVENT_CATALOGUE, SUBSCRIBABLE_EVENT_TYPES, type EventType } from './event-catalogue.js';
import { toEnvelope } from './events.service.js';
import type { EventEnvelope } from './event-types.js';

/** One member of an event type's `data`, as the OpenAPI document describes it. */
export interface EventMemberReference {
  /** Its name; a nested object's members as `changed_by.kind`. */
  name: string;
  /** "string", "integer or null", "one of new, contacted", "array of string", "object". */
  type: string;
  required: boolean;
  description: string;
}

/** An event type an endpoint may subscribe to: what it means, its `data` members, and one event of it. */
export interface EventTypeReference {
  type: EventType;
  summary: string;
  members: EventMemberReference[];
  example: EventEnvelope;
}

type Member = SchemaObject | ReferenceObject;

const EXAMPLE_EVENT_ID = 'evt_01kqhxsvc0000100000003a7kqk7qz2m';
const EXAMPLE_ORG_ID = '7c1e8a52-3f0d-4b6e-9a21-5d4c3b2a1f00';
const EXAMPLE_AT = new Date('2026-05-01T14:06:40.000Z');

const isReference = (member: Member): member is ReferenceObject => '$ref' in member;

/** The schema a member refers to (`$ref`, or Nest's `allOf: [{$ref}]`), when it is a nested object. */
function referred(member: Member, schemas: Record<string, SchemaObject>): SchemaObject | undefined {
  const ref = isReference(member) ? member : member.allOf?.find(isReference);
  return ref ? schemas[ref.$ref.split('/').pop()!] : undefined;
}

function typeOf(member: SchemaObject): string {
  const items = member.items && !isReference(member.items) ? member.items.type : 'object';
  const base = member.enum
    ? `one of ${member.enum.join(', ')}`
    : member.type === 'array'
      ? `array of ${String(items)}`
      : `${String(member.type ?? 'object')}${member.format ? ` (${member.format})` : ''}`;
  return member.nullable ? `${base} or null` : base;
}

function membersOf(schema: SchemaObject, schemas: Record<string, SchemaObject>, prefix = ''): EventMemberReference[] {
  return Object.entries(schema.properties ?? {}).flatMap(([name, member]) => {
    const nested = referred(member, schemas);
    const description = isReference(member) ? '' : (member.description ?? '');
    const own = { name: prefix + name, required: (schema.required ?? []).includes(name), description };
    if (nested || isReference(member))
      return [{ ...own, type: 'object' }, ...(nested ? membersOf(nested, schemas, `${prefix}${name}.`) : [])];
    return [{ ...own, type: typeOf(member) }];
  });
}

function exampleOf(schema: SchemaObject, schemas: Record<string, SchemaObject>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, member]) => {
      const nested = referred(member, schemas);
      const example: unknown = isReference(member) ? null : member.example;
      return [name, nested ? exampleOf(nested, schemas) : (example ?? null)];
    }),
  );
}

/**
 * Every event type an endpoint may subscribe to, read from the catalogue that types the OpenAPI document: its
 * summary, and its `data` members and one example event from the same classes' schemas (@nestjs/swagger's
 * generateSchema, as the document's components are made), the example in the envelope every event is sent in.
 */
export function eventTypeReference(): EventTypeReference[] {
  return SUBSCRIBABLE_EVENT_TYPES.map((type) => {
    const data: new () => object = EVENT_CATALOGUE[type].data;
    const { schema, schemas } = generateSchema(data);
    const example = toEnvelope({
      id: EXAMPLE_EVENT_ID,
      type,
      occurredAt: EXAMPLE_AT,
      orgId: EXAMPLE_ORG_ID,
      test: false,
      livemode: true,
      data: exampleOf(schema, schemas),
    });
    return { type, summary: EVENT_CATALOGUE[type].summary, members: membersOf(schema, schemas), example };
  });
}
