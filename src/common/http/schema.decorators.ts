import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';

/**
 * An open enumeration (the spec lets it gain values): a string whose known
 * values are listed in `x-extensible-enum` and the description, so a strict
 * generated client keeps accepting a value added later.
 */
export function OpenEnum(values: readonly string[], o: { description: string; nullable?: boolean; example?: string }) {
  const options = {
    type: 'string',
    nullable: o.nullable ?? false,
    description: `${o.description} Known values: ${values.join(', ')}; more may be added.`,
    example: o.example ?? values[0],
    'x-extensible-enum': [...values],
  };
  return ApiProperty(options as ApiPropertyOptions);
}

/** An array of open-enumeration strings (see OpenEnum): each item's known values in `x-extensible-enum`, none refused. */
export function OpenEnumList(values: readonly string[], o: { description: string; example: string[] }) {
  const options = {
    type: 'array',
    items: { type: 'string', 'x-extensible-enum': [...values] },
    description: `${o.description} Known values: ${values.join(', ')}; more may be added.`,
    example: o.example,
  };
  return ApiProperty(options as ApiPropertyOptions);
}

/** A string that is always present and may be null. */
export const NullableString = (description: string, example: string | null = null, extra: ApiPropertyOptions = {}) =>
  ApiProperty({ type: 'string', nullable: true, description, example, ...extra } as ApiPropertyOptions);

/** A boolean that is always present and may be null. */
export const NullableBoolean = (description: string, example: boolean | null = null) =>
  ApiProperty({ type: 'boolean', nullable: true, description, example });

/** An ISO 8601 date-time that is always present and may be null. */
export const NullableDateTime = (description: string, example: string | null = '2026-05-01T14:03:12Z') =>
  ApiProperty({ type: 'string', format: 'date-time', nullable: true, description, example });
