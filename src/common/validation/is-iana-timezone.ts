import { registerDecorator, type ValidationOptions } from 'class-validator';

export function isIanaTimezone(value: unknown): boolean {
  if (typeof value !== 'string' || value.length === 0) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export function IsIanaTimezone(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isIanaTimezone',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be an IANA timezone name such as America/Chicago`, ...options },
      validator: { validate: isIanaTimezone },
    });
}
