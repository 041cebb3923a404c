import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Max, Min, ValidateBy } from 'class-validator';
import { EVENT_ID_PATTERN, eventIdMessage, isEventId } from '../ids.js';
import { isQueryDateTime, QUERY_DATE_TIME_FORMS, QUERY_DATE_TIME_PATTERN } from '../instant.js';
import { QueryTransform } from './query-transforms.js';
import { TEXT_PATTERN } from './string-safety.js';

/**
 * Query parameters arrive as strings. These decorators validate the string
 * form (so `limit=abc` names `limit` in the 400) and document it in OpenAPI
 * from the same declaration.
 *
 * An integer is documented as OpenAPI means it (`type: integer`, its bounds,
 * a numeric default: the query text is its decimal form), while only plain
 * digits are read as a number, so `limit=abc`, `1e2` or `-1` stay 400s.
 */
export function QueryIntRange(name: string, min: number, max: number, dflt: number | undefined, description: string) {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      minimum: min,
      maximum: max,
      description: `${description} Decimal digits only (no sign, point or exponent).`,
      ...(dflt !== undefined ? { default: dflt } : {}),
    }),
    IsOptional(),
    QueryTransform((value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value)),
    IsInt({ message: `${name} must be an integer from ${min} to ${max}` }),
    Min(min, { message: `${name} must be an integer from ${min} to ${max}` }),
    Max(max, { message: `${name} must be an integer from ${min} to ${max}` }),
  );
}

/** A list's page size, as the context that owns the list states it (its `*-rules.ts`). */
export interface PageSize {
  readonly min: number;
  readonly max: number;
  readonly default: number;
}

/** `limit`: the page size of a list, its bounds and default from the owning context's one statement of them. */
export function QueryPageSize(page: PageSize) {
  return QueryIntRange('limit', page.min, page.max, page.default, `Page size, ${page.min} to ${page.max}.`);
}

/**
 * A date-time filter: the pattern the document serves is the check the
 * validator runs (instant.ts), so both accept exactly the same texts.
 */
export function QueryDateTime(name: string, description: string) {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'string',
      pattern: QUERY_DATE_TIME_PATTERN,
      description: `${description} Takes ${QUERY_DATE_TIME_FORMS}.`,
    }),
    IsOptional(),
    ValidateBy({
      name: 'isQueryDateTime',
      validator: { validate: isQueryDateTime, defaultMessage: () => `${name} must be a date-time such as 2026-05-01T00:00:00Z` },
    }),
  );
}

export function QueryEnum(name: string, values: readonly string[], description: string) {
  return applyDecorators(
    ApiPropertyOptional({ enum: values, description }),
    IsOptional(),
    IsIn(values as string[], { message: `${name} must be one of ${values.join(', ')}` }),
  );
}

export function QueryBoolean(name: string, description: string) {
  return applyDecorators(
    ApiPropertyOptional({ enum: ['true', 'false'], description }),
    IsOptional(),
    IsIn(['true', 'false'], { message: `${name} must be true or false` }),
  );
}

/**
 * `cursor`: next_cursor from the previous page, with the same filters. Opaque, so the document gives no
 * form: any other value (or one issued for other filters) is refused by the service that issued it.
 */
export function QueryCursor(description = 'next_cursor from the previous page, with the same filters.') {
  return applyDecorators(
    ApiPropertyOptional({
      description: `${description} Opaque: pass it exactly as received; any other value answers 400 naming cursor.`,
    }),
    IsOptional(),
    IsString({ message: 'cursor must be a string' }),
  );
}

/** An optional query parameter holding an event id (ids.ts isEventId), documented from the same declaration. */
export function QueryEventId(name: string, description: string) {
  return applyDecorators(
    ApiPropertyOptional({ description, pattern: EVENT_ID_PATTERN.source }),
    IsOptional(),
    ValidateBy({ name: 'isEventId', validator: { validate: isEventId, defaultMessage: () => eventIdMessage(name) } }),
  );
}

/**
 * A free-text filter with no length bound of its own: a value longer than
 * anything stored simply matches nothing (an empty list, not a 400).
 */
export function QueryFilterText(name: string, description: string, message = `${name} must be a string`) {
  return applyDecorators(ApiPropertyOptional({ description, pattern: TEXT_PATTERN }), IsOptional(), IsString({ message }));
}

/** A filter of a stated form: the pattern the document serves is the check the validator runs. */
export function QueryPattern(name: string, pattern: string, description: string, message: string, format?: string) {
  const form = new RegExp(pattern);
  return applyDecorators(
    ApiPropertyOptional({ type: 'string', ...(format ? { format } : {}), pattern, description }),
    IsOptional(),
    ValidateBy({
      name: `${name}Form`,
      validator: { validate: (v: unknown) => typeof v === 'string' && form.test(v), defaultMessage: () => message },
    }),
  );
}
