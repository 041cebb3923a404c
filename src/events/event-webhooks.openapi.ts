import { getSchemaPath } from '@nestjs/swagger';
import { EVENT_ID_PATTERN } from '../common/ids.js';
import { DEFAULT_DELIVERY_ATTEMPTS, WEBHOOK_SEND_TIMEOUT_MS } from '../config/app-config.js';
import { EVENT_CATALOGUE, EVENT_TYPES, type EventType } from './event-catalogue.js';

/** One signature: `v1,` (HMAC-SHA256) or `v1a,` (ed25519), then base64. */
const BASE64_SIGNATURE = 'v1a?,[A-Za-z0-9+/]+={0,2}';
const header = (name: string, description: string, pattern: string, examples: Record<string, { summary: string; value: string }>) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string', pattern },
  examples,
});
const one = (value: string) => ({ delivery: { summary: 'A delivery', value } });

const SIGNATURE_HEADERS = [
  header(
    'webhook-id',
    "The event's id (evt_...); identical on every retry: store handled ids and skip repeats.",
    EVENT_ID_PATTERN.source,
    one('evt_01kqhxsvc0000100000003a7kqk7qz2m'),
  ),
  header(
    'webhook-timestamp',
    'When this attempt was sent, seconds since 1970. Refuse a delivery more than 5 minutes from your clock.',
    '^[0-9]+$',
    one('1777644400'),
  ),
  // During a signing-secret rotation (CLI `endpoint rotate-secret`) each delivery is signed with both secrets.
  header(
    'webhook-signature',
    "The signature of `{webhook-id}.{webhook-timestamp}.{raw body}`, by the endpoint's `signature` scheme: `v1,` then the base64 HMAC-SHA256 of it, keyed with the base64-decoded part of the secret after `whsec_` (compare in constant time); or `v1a,` then the base64 ed25519 signature of it, verified with the endpoint's `public_key` (the base64 part after `whpk_` is the 32-byte public key). While the endpoint's signing key is being rotated (for the overlap, 24 hours by default), two such values are sent, space-separated, newest first (a rotation may change the scheme, so a `v1a` and a `v1` value): accept the delivery when any one of them verifies with a key you hold, and ignore a scheme you do not verify (Standard Webhooks allows several).",
    `^${BASE64_SIGNATURE}( ${BASE64_SIGNATURE})*$`,
    {
      delivery: { summary: 'One secret', value: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' },
      rotation: {
        summary: 'During a secret rotation: one signature per secret, newest first',
        value: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE= v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
      },
      ed25519: {
        summary: 'An endpoint whose signature is v1a (ed25519)',
        value: 'v1a,hnO3f9T8Ytu9HwNZA8NEZ0hvw3qBT/9lZKl1nHZ4bFK4xzOE5vOTPoTIZYFULcJvLM4JaGqZ/fxFCX6JBQBXCw==',
      },
    },
  ),
];

type Schema = { properties?: Record<string, unknown>; required?: string[] };

/** The component of one event type's envelope: CallCompletedData's event is CallCompletedEvent. */
const envelopeName = (type: EventType) => EVENT_CATALOGUE[type].data.name.replace(/Data$/, 'Event');

/**
 * The envelope schema of one event type: the members of EventDto (the one
 * declaration of the envelope), with `type`, `test` and `data` narrowed to this
 * type's. Written out rather than an allOf over EventDto, so a generated client
 * gets one object per event type whose `data` is this type's alone, and can
 * narrow an event on `type`.
 */
function envelopeSchema(type: EventType, envelope: Schema) {
  return {
    type: 'object',
    description: `A ${type} event: ${EVENT_CATALOGUE[type].summary}`,
    required: envelope.required ?? [],
    properties: {
      ...envelope.properties,
      type: { type: 'string', const: type, description: 'The event type.', example: type },
      test: {
        type: 'boolean',
        const: type === 'webhook.test',
        description: 'True only on webhook.test.',
        example: type === 'webhook.test',
      },
      data: { $ref: getSchemaPath(EVENT_CATALOGUE[type].data) },
    },
  };
}

/**
 * An event of a type this document does not list: the spec lets new types
 * appear and receivers ignore them. Its `type` is any other string (so a known
 * type always meets its own schema, never this one) and its `data` any object.
 */
function otherTypeSchema(envelope: Schema) {
  return {
    type: 'object',
    description: 'An event of a type added after this document was written: ignore it (or read it as the types you know are read).',
    required: envelope.required ?? [],
    properties: {
      ...envelope.properties,
      type: {
        type: 'string',
        not: { enum: [...EVENT_TYPES] },
        description: `A type other than ${EVENT_TYPES.join(', ')}.`,
        example: 'call.transcribed',
      },
      test: { type: 'boolean', const: false, description: 'True only on webhook.test, so false here.', example: false },
      data: { type: 'object', additionalProperties: true, description: 'Its members; ignore what you do not know.', example: {} },
    },
  };
}

/**
 * The event schemas of the document: one envelope per known type (its `data`
 * tied to its type), KnownEvent, their union discriminated on `type`,
 * OtherEvent, an event of any other type (types are open), and EventDto, what
 * GET /v1/events and /v1/events/{event_id} answer: one of the two. The
 * discriminator sits on the known types alone, since a discriminator value
 * names one schema and the other types are not one value. `envelope` is
 * EventDto's schema as Nest built it from the class, which it replaces.
 */
export function eventSchemas(envelope: Schema & { description?: string }): Record<string, unknown> {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const envelopes = Object.fromEntries(EVENT_TYPES.map((type) => [envelopeName(type), envelopeSchema(type, envelope)]));
  return {
    ...envelopes,
    KnownEvent: {
      description: `An event of a type this document describes (${EVENT_TYPES.join(', ')}): its \`type\` says which schema, and so which \`data\`, it has.`,
      oneOf: EVENT_TYPES.map((type) => ref(envelopeName(type))),
      discriminator: { propertyName: 'type', mapping: Object.fromEntries(EVENT_TYPES.map((type) => [type, ref(envelopeName(type)).$ref])) },
    },
    OtherEvent: otherTypeSchema(envelope),
    EventDto: {
      description: `${envelope.description ?? ''} A known type's event has that type's schema (KnownEvent); an event of a type added later has free-form \`data\` (OtherEvent): ignore it.`,
      oneOf: [ref('KnownEvent'), ref('OtherEvent')],
    },
  };
}

/**
 * The OpenAPI 3.1 `webhooks` section: one POST per event type with its typed
 * payload (the same envelope component the events list uses) and the Standard
 * Webhooks signature headers, so generated clients can type a receiver.
 */
export function eventWebhooks(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `on${type.replace(/(^|[._])([a-z])/g, (_m, _d, c: string) => c.toUpperCase())}`,
          summary: EVENT_CATALOGUE[type].summary,
          description: `${EVENT_CATALOGUE[type].summary} Answer any 2xx within ${WEBHOOK_SEND_TIMEOUT_MS / 1000} seconds; anything else is a failed attempt, retried up to ${DEFAULT_DELIVERY_ATTEMPTS} attempts in total (webhook.test is not retried). The same event can arrive more than once and out of order.`,
          tags: ['Webhooks'],
          security: [],
          parameters: SIGNATURE_HEADERS,
          requestBody: {
            required: true,
            description: `The ${type} event as POSTed to an endpoint.`,
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${envelopeName(type)}` } } },
          },
          responses: {
            '200': { description: 'Received (any 2xx counts).' },
            '410': { description: 'Gone: the endpoint is turned off at once.' },
          },
        },
      },
    ]),
  );
}
