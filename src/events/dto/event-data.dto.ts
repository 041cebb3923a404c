import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CATEGORIES, OUTCOMES, URGENCIES } from '../../calls/index.js';
import { NullableBoolean, NullableDateTime, NullableString, OpenEnum, OpenEnumList } from '../../common/http/schema.decorators.js';

// The leads context depends on this one (it records lead events), so its status list cannot be imported here.
const LEAD_STATUS_VALUES = ['new', 'contacted', 'signed', 'rejected'];
const CALL_ID = 'call_01jd5x8m3q7k2w9n4b6c8d0f2h';
const LEAD_ID = 'lead_01jd5x8m3q7k2w9n4b6c8d0f2h';
const UNKNOWN_FIELDS = 'Unknown members may appear and must be ignored.';

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
  @ApiProperty({ enum: ['new'], description: 'Always new.', example: 'new' }) status: string;
  @OpenEnum(CATEGORIES, { nullable: true, description: 'As on the call. Treat unknown values as other.' }) category: string | null;
  @OpenEnum(URGENCIES, { nullable: true, description: 'As on the call. Treat unknown values as normal.', example: 'normal' }) urgency:
    string | null;
  @ApiProperty({ description: 'The lead on the REST API.', example: `https://api.example.com/v1/leads/${LEAD_ID}` }) url: string;
}

@ApiSchema({ description: 'Who made a lead change.' })
export class LeadChangedByData {
  @OpenEnum(['api_key', 'connector'], { description: 'An API key, or an AI assistant connector.', example: 'api_key' }) kind: string;
  @ApiProperty({
    description: "The key's or connector's id: when it is your own key's id, the event echoes your own write.",
    example: 'key_01jd5x8m',
  })
  id: string;
}

@ApiSchema({ description: `data of lead.updated: a lead's status, external_id or status_reason changed. ${UNKNOWN_FIELDS}` })
export class LeadUpdatedData {
  @ApiProperty({ description: 'The lead.', example: LEAD_ID }) lead_id: string;
  @ApiProperty({ description: 'The call it came from.', example: CALL_ID }) call_id: string;
  @ApiProperty({ enum: LEAD_STATUS_VALUES, description: 'Status after the change.', example: 'contacted' }) status: string;
  @ApiProperty({ enum: LEAD_STATUS_VALUES, description: 'Status before; equals status when status did not change.', example: 'new' })
  previous_status: string;
  @OpenEnumList(['status', 'external_id', 'status_reason'], { description: 'Names of the fields that changed.', example: ['status'] })
  changes: string[];
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

/** The data schema of each event type. */
export const EVENT_DATA_MODELS = {
  'call.completed': CallCompletedData,
  'lead.created': LeadCreatedData,
  'lead.updated': LeadUpdatedData,
  'webhook.test': WebhookTestData,
} as const;
