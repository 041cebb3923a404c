import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CATEGORIES, OUTCOMES, URGENCIES } from '../calls/index.js';
import { NullableBoolean, NullableDateTime, NullableString, OpenEnum, OpenEnumList } from '../common/http/schema.decorators.js';
import { FIRM_FIELDS, LEAD_CHANGED_BY_KINDS, LEAD_STATUSES, type FirmField, type LeadChangedBy, type LeadStatus } from '../leads/index.js';

/*
 * The one declaration of every event type: each `data` class below is at once
 * the TypeScript type `EventsService.record()` accepts for its type and the
 * schema the OpenAPI document serves (components and the webhooks section).
 * Known values come from the context that defines them, never copied here.
 */

const CALL_ID = 'call_01jd5x8m3q7k2w9n4b6c8d0f2h';
const LEAD_ID = 'lead_01jd5x8m3q7k2w9n4b6c8d0f2h';
const UNKNOWN_FIELDS = 'Unknown members may appear and must be ignored.';
/** A lead starts as new (the only status lead.created carries). */
const INITIAL_STATUS = 'new' satisfies LeadStatus;

@ApiSchema({ description: `data of call.completed: a call has ended and processing has finished. ${UNKNOWN_FIELDS}` })
export class CallCompletedData {
  @ApiProperty({ description: 'The call; read it from the REST API.', example: CALL_ID }) call_id: string;
  @NullableDateTime('Call start, with UTC offset.') occurred_at: string | null;
  @NullableBoolean('False when the caller hung up before the receptionist spoke.', true) answered: boolean | null;
  @ApiProperty({ type: 'integer', nullable: true, minimum: 0, description: 'Length in seconds.', example: 184 }) duration_s: number | null;
  @OpenEnum(CATEGORIES, { nullable: true, description: 'As on the call. Treat unknown values as other.' }) category: string | null;
  @OpenEnum(URGENCIES, { nullable: true, description: 'As on the call. Treat unknown values as normal.', example: 'normal' }) urgency:
    string | null;
  @OpenEnum(OUTCOMES, { nullable: true, description: 'Transfer outcome. Treat unknown values as not_attempted.', example: 'connected' })
  outcome: string | null;
  @NullableString('The lead the call produced, if any.', LEAD_ID) lead_id: string | null;
  @ApiProperty({ description: 'Whether a recording exists.', example: true }) has_recording: boolean;
  @ApiProperty({ description: 'The call on the REST API.', example: `https://api.example.com/v1/calls/${CALL_ID}` }) url: string;
  @NullableString('The call in the dashboard (sign-in required).', `https://app.example.com/calls/${CALL_ID}`) dashboard_url: string | null;
}

@ApiSchema({ description: `data of lead.created: a call produced a lead. ${UNKNOWN_FIELDS}` })
export class LeadCreatedData {
  @ApiProperty({ description: 'The new lead.', example: LEAD_ID }) lead_id: string;
  @ApiProperty({ description: 'The call it came from.', example: CALL_ID }) call_id: string;
  @ApiProperty({ enum: [INITIAL_STATUS], description: 'Always new.', example: INITIAL_STATUS }) status: typeof INITIAL_STATUS;
  @OpenEnum(CATEGORIES, { nullable: true, description: 'As on the call. Treat unknown values as other.' }) category: string | null;
  @OpenEnum(URGENCIES, { nullable: true, description: 'As on the call. Treat unknown values as normal.', example: 'normal' }) urgency:
    string | null;
  @ApiProperty({ description: 'The lead on the REST API.', example: `https://api.example.com/v1/leads/${LEAD_ID}` }) url: string;
}

@ApiSchema({ description: 'Who made a lead change.' })
export class LeadChangedByData {
  @OpenEnum(LEAD_CHANGED_BY_KINDS, { description: 'An API key, or an AI assistant connector.', example: 'api_key' })
  kind: LeadChangedBy['kind'];
  @ApiProperty({
    description: "The key's or connector's id: when it is your own key's id, the event echoes your own write.",
    example: '3f1c2a9e-8d4b-4c6a-9e2f-1a2b3c4d5e6f',
  })
  id: string;
}

@ApiSchema({ description: `data of lead.updated: a lead's status, external_id or status_reason changed. ${UNKNOWN_FIELDS}` })
export class LeadUpdatedData {
  @ApiProperty({ description: 'The lead.', example: LEAD_ID }) lead_id: string;
  @ApiProperty({ description: 'The call it came from.', example: CALL_ID }) call_id: string;
  @ApiProperty({ enum: [...LEAD_STATUSES], description: 'Status after the change.', example: 'contacted' }) status: LeadStatus;
  @ApiProperty({ enum: [...LEAD_STATUSES], description: 'Status before; equals status when status did not change.', example: 'new' })
  previous_status: LeadStatus;
  @OpenEnumList(FIRM_FIELDS, { description: 'Names of the fields that changed.', example: ['status'] })
  changes: FirmField[];
  @ApiProperty({ type: LeadChangedByData, description: 'Who made the change.' }) changed_by: LeadChangedByData;
  @ApiProperty({ description: 'The lead on the REST API.', example: `https://api.example.com/v1/leads/${LEAD_ID}` }) url: string;
}

@ApiSchema({ description: `data of webhook.test: a test was requested; refers to no call or lead. ${UNKNOWN_FIELDS}` })
export class WebhookTestData {
  @ApiProperty({ format: 'uuid', description: 'The endpoint the test was sent to.', example: '0b9c6f43-5d1e-4c8a-9f2b-7e3d1a6c5b40' })
  endpoint_id: string;
  @ApiProperty({ description: 'A fixed note.', example: 'This is a test event sent from the API. It refers to no call or lead.' })
  message: string;
}

/*
 * Events about the webhooks themselves: ids and facts only. The reasons are the webhooks context's `disabled_reason`
 * values (webhooks depends on events, so they are written here, where the document's schema is declared).
 */
const ENDPOINT_ID = { format: 'uuid', example: '0b9c6f43-5d1e-4c8a-9f2b-7e3d1a6c5b40' } as const;
export const ENDPOINT_DISABLED_REASONS = ['owner', 'failing', 'gone'] as const;

@ApiSchema({
  description: `data of webhook_endpoint.disabled: a webhook endpoint was turned off; nothing is sent to it while it is off. ${UNKNOWN_FIELDS}`,
})
export class WebhookEndpointDisabledData {
  @ApiProperty({ ...ENDPOINT_ID, description: 'The endpoint turned off.' }) endpoint_id: string;
  @ApiProperty({
    enum: [...ENDPOINT_DISABLED_REASONS],
    description:
      'owner: turned off in the dashboard; failing: a delivery ran out of attempts after 3 days without a successful one; gone: it answered 410 Gone.',
    example: 'failing',
  })
  reason: (typeof ENDPOINT_DISABLED_REASONS)[number];
}

@ApiSchema({ description: `data of webhook_endpoint.enabled: a webhook endpoint was turned back on. ${UNKNOWN_FIELDS}` })
export class WebhookEndpointEnabledData {
  @ApiProperty({ ...ENDPOINT_ID, description: 'The endpoint turned back on.' }) endpoint_id: string;
}

@ApiSchema({ description: `data of webhook_delivery.exhausted: a delivery used its last attempt without success. ${UNKNOWN_FIELDS}` })
export class WebhookDeliveryExhaustedData {
  @ApiProperty({ format: 'uuid', description: 'The delivery.', example: '6a1f0d2c-3b4e-4f5a-8c9d-0e1f2a3b4c5d' }) delivery_id: string;
  @ApiProperty({
    description: 'The event it delivered; read it with GET /v1/events/{event_id}.',
    example: 'evt_01kqhxsvc0000100000003a7kqk7qz2m',
  })
  event_id: string;
  @ApiProperty({ ...ENDPOINT_ID, description: 'The endpoint it went to.' }) endpoint_id: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The HTTP status of its last attempt; null when that attempt got no answer (timeout, refused connection, ...).',
    example: 503,
  })
  last_status_code: number | null;
}

@ApiSchema({ description: `data of webhook_endpoint.recovered: a delivery succeeded after a run of failed ones. ${UNKNOWN_FIELDS}` })
export class WebhookEndpointRecoveredData {
  @ApiProperty({ ...ENDPOINT_ID, description: 'The endpoint.' }) endpoint_id: string;
  @ApiProperty({ format: 'date-time', description: 'When the run of failures that ended began.', example: '2026-05-01T13:02:11Z' })
  failing_since: string;
}

/** One event type: its data, what it means (the webhook operation's summary), and whether an endpoint may subscribe to it. */
interface EventSpec {
  data: new () => object;
  summary: string;
  subscribable: boolean;
}

/** Every event type, in the order the document lists them. */
export const EVENT_CATALOGUE = {
  'call.completed': {
    data: CallCompletedData,
    summary: 'A call has ended and processing has finished (sent for every call, answered or not).',
    subscribable: true,
  },
  'lead.created': { data: LeadCreatedData, summary: 'A call produced a lead.', subscribable: true },
  'lead.updated': { data: LeadUpdatedData, summary: "A lead's status, external_id or status_reason changed.", subscribable: true },
  // Sent to the one endpoint it was requested for, never to subscribers.
  'webhook.test': {
    data: WebhookTestData,
    summary: 'A test was requested; sent to that one endpoint only, attempted once.',
    subscribable: false,
  },
  // About the webhooks themselves: never sent to the endpoint they are about while it is off.
  'webhook_endpoint.disabled': {
    data: WebhookEndpointDisabledData,
    summary: 'A webhook endpoint was turned off: by its owner, for failing, or because it answered 410 Gone.',
    subscribable: true,
  },
  'webhook_endpoint.enabled': { data: WebhookEndpointEnabledData, summary: 'A webhook endpoint was turned back on.', subscribable: true },
  'webhook_delivery.exhausted': {
    data: WebhookDeliveryExhaustedData,
    summary: 'A webhook delivery used its last attempt without success.',
    subscribable: true,
  },
  'webhook_endpoint.recovered': {
    data: WebhookEndpointRecoveredData,
    summary: 'A webhook endpoint answered a delivery with success after a run of failures.',
    subscribable: true,
  },
} as const satisfies Record<string, EventSpec>;

type Catalogue = typeof EVENT_CATALOGUE;
export type EventType = keyof Catalogue;
/** The `data` of an event of type T, exactly as record() takes it and the document describes it. */
export type EventData<T extends EventType> = InstanceType<Catalogue[T]['data']>;
export type SubscribableEventType = { [T in EventType]: Catalogue[T]['subscribable'] extends true ? T : never }[EventType];

export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as readonly EventType[];
/** What an endpoint may subscribe to. */
export const SUBSCRIBABLE_EVENT_TYPES: readonly SubscribableEventType[] = EVENT_TYPES.filter(
  (t): t is SubscribableEventType => EVENT_CATALOGUE[t].subscribable,
);
/** The data classes, for the document's components (each one's schema is named after it). */
export const EVENT_DATA_MODELS = EVENT_TYPES.map((t) => EVENT_CATALOGUE[t].data);
