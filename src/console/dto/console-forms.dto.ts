import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

/** What the console says after an action it redirects from (a fixed text per code, never text from the request). */
export const NOTICES = {
  'test-sent': 'Test event sent: a new webhook.test delivery is on its way.',
  resent: 'Resent: a new delivery of the same event (same webhook-id) is on its way.',
  disabled: 'Endpoint disabled: nothing is sent to it while it is off, nor later.',
  enabled: 'Endpoint enabled: new events are sent to it again.',
  deleted: 'Endpoint deleted, with its deliveries.',
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

export class EndpointListQueryDto {
  @IsOptional()
  @IsIn(Object.keys(NOTICES))
  done?: Notice;
}

export class EndpointPageQueryDto extends EndpointListQueryDto {
  /** The next page's cursor (the API's keyset cursor, bound to this firm, mode and endpoint). */
  @IsOptional()
  @IsString()
  cursor?: string;
}
