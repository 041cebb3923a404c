import { getSchemaPath } from '@nestjs/swagger';
import { EVENT_ID_PATTERN } from '../common/ids.js';
import { EVENT_CATALOGUE, EVENT_TYPES, type EventType } from './event-catalogue.js';

const BASE64_SIGNATURE = 'v1,[A-Za-z0-9+/]+={0,2}';
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
    one('evt_01jd5x8m3q0000000000000000'),
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
    "`v1,` then the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of the secret after `whsec_`. Compare in constant time. While the endpoint's signing secret is being rotated (for the overlap, 24 hours by default), two such values are sent, space-separated, newest secret first: accept the delivery when any one of them verifies with a secret you hold (Standard Webhooks allows several).",
    `^${BASE64_SIGNATURE}( ${BASE64_SIGNATURE})*$`,
    {
      delivery: { summary: 'One secret', value: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' },
      rotation: {
        summary: 'During a secret rotation: one signature per secret, newest first',
        value: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE= v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
      },
    },
  ),
];

type Schema = { properties?: Record<string, unknown>; required?: string[] };

/**
 * The envelope schema of one event type: the members of EventDto (the one
 * declaration of the envelope), with `type`, `test` and `data` narrowed to this
 * type's. Written out rather than an allOf over EventDto, so a generated client
 * gets one object per event type whose `data` is this type's alone, and can
 * narrow a payload on `type`.
 */
function envelopeSchema(type: EventType, envelope: Schema) {
  return {
    type: 'object',
    description: `The ${type} event as POSTed to an endpoint.`,
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
 * The OpenAPI 3.1 `webhooks` section: one POST per event type with its typed
 * payload and the Standard Webhooks signature headers, so generated clients
 * can type a receiver. `envelope` is EventDto's schema in the built document.
 */
export function eventWebhooks(envelope: Schema): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `on${type.replace(/(^|\.)([a-z])/g, (_m, _d, c: string) => c.toUpperCase())}`,
          summary: EVENT_CATALOGUE[type].summary,
          description: `${EVENT_CATALOGUE[type].summary} Answer any 2xx within 10 seconds; anything else is a failed attempt, retried up to 8 attempts in total (webhook.test is not retried). The same event can arrive more than once and out of order.`,
          tags: ['Webhooks'],
          security: [],
          parameters: SIGNATURE_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: envelopeSchema(type, envelope) } } },
          responses: {
            '200': { description: 'Received (any 2xx counts).' },
            '410': { description: 'Gone: the endpoint is turned off at once.' },
          },
        },
      },
    ]),
  );
}
