import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { QueryTransform } from '../../common/validation/query-transforms.js';
import { EVENT_TYPES } from '../../events/index.js';
import { DELIVERY_STATUSES } from '../../webhooks/index.js';

/** What the console says after an action it redirects from (a fixed text per code, never text from the request). */
export const NOTICES = {
  'test-sent': 'Test event sent: a new webhook.test delivery is on its way.',
  resent: 'Resent: a new delivery of the same event (same webhook-id) is on its way.',
  disabled: 'Endpoint disabled: nothing is sent to it while it is off, nor later.',
  enabled: 'Endpoint enabled: new events are sent to it again.',
  deleted: 'Endpoint deleted, with its deliveries.',
  updated: 'Endpoint saved: the next event is sent to it by its new event types.',
} as const;
export type Notice = keyof typeof NOTICES;

/** Every console form: the session's CSRF token (checked before the handler; declared so the body validates). */
export class ConsoleFormDto {
  @IsString()
  csrf_token: string;
}

/** "Add endpoint": the CLI's `endpoint create` fields; the webhooks context checks them (https, public, types, 5). */
export class AddEndpointFormDto extends ConsoleFormDto {
  @IsString()
  @MaxLength(2048)
  url: string;

  @IsOptional()
  @IsString()
  description?: string;

  /** One checkbox per type: a string for one, a list for several. */
  @IsOptional()
  @IsString({ each: true })
  types?: string | string[];
}

/** "Save" on the edit form: the CLI's `endpoint update` fields; no URL (the form has none, the rule refuses one). */
export class EditEndpointFormDto extends ConsoleFormDto {
  /** Always sent by the form; empty clears the label. */
  @IsString()
  description: string;

  /** The ticked checkboxes: none ticked sends none, which the rule refuses (at least one type stays). */
  @IsOptional()
  @IsString({ each: true })
  types?: string | string[];
}

/** A filter form's "any" (an empty choice) is no filter. */
const emptyIsNone = (value: unknown) => (value === '' ? undefined : value);

export class EndpointListQueryDto {
  @IsOptional()
  @IsIn(Object.keys(NOTICES))
  done?: Notice;
}

/** The endpoint page: the filter form's choices, and the cursor of "Older" or of "Newer". */
export class EndpointPageQueryDto extends EndpointListQueryDto {
  @QueryTransform(emptyIsNone)
  @IsOptional()
  @IsIn(DELIVERY_STATUSES, { message: `status must be one of ${DELIVERY_STATUSES.join(', ')}` })
  status?: (typeof DELIVERY_STATUSES)[number];

  @QueryTransform(emptyIsNone)
  @IsOptional()
  @IsIn(EVENT_TYPES, { message: `event_type must be one of ${EVENT_TYPES.join(', ')}` })
  event_type?: string;

  /** "Older": the page after the last delivery shown (the API's keyset cursor, bound to the firm, mode and filters). */
  @IsOptional()
  @IsString()
  cursor?: string;

  /** "Newer": the page before the first delivery shown. */
  @IsOptional()
  @IsString()
  newer?: string;
}
