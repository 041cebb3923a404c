import { isISO8601, ValidateBy, ValidateIf } from 'class-validator';
import { normalizePhone } from '../../common/phone.js';

/* The call document's own checks, beside class-validator's. */

const ISO_WITH_OFFSET = /(Z|[+-]\d{2}:?\d{2})$/;

/** ISO 8601 date-time with a UTC offset (one check, one message). */
export function IsDateTimeWithOffset() {
  return ValidateBy({
    name: 'isDateTimeWithOffset',
    validator: {
      validate: (v: unknown) => typeof v === 'string' && isISO8601(v, { strict: true }) && /T/.test(v) && ISO_WITH_OFFSET.test(v),
      defaultMessage: () => 'must be an ISO 8601 date-time with a UTC offset, such as 2026-03-02T15:04:05Z',
    },
  });
}

/** A phone number the service can check and normalise (the one normaliser, src/common/phone.ts). */
export function IsCheckablePhone() {
  return ValidateBy({
    name: 'isCheckablePhone',
    validator: {
      validate: (v: unknown) => typeof v === 'string' && normalizePhone(v) !== null,
      defaultMessage: () => 'must be a valid phone number: E.164, or a US number such as (312) 555-0123',
    },
  });
}

/**
 * An object member that may be omitted (its default applies) but is never
 * null: the spec gives it as an object, not "object or null". Without
 * @IsOptional, the shape check (nested-shapes.ts) refuses null.
 */
export const Omittable = () => ValidateIf((_object: object, value: unknown) => value !== undefined);
