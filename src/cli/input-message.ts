import type { InvalidInputError } from '../common/errors/invalid-input.js';

/** The flag that sets each domain field a service may refuse. */
const FLAGS: Record<string, string> = {
  name: 'name',
  permissionSet: 'set',
  expiresAt: 'expires-at',
  url: 'url',
  description: 'description',
  types: 'types',
};

/** A service's refusal in the operator's words: the field becomes the flag that set it ("--url must be an https URL"). */
export function inputMessage(err: InvalidInputError): string {
  const flag = err.field === null ? undefined : FLAGS[err.field];
  if (flag === undefined) return err.message;
  return `--${flag}${err.reason.startsWith(':') ? '' : ' '}${err.reason}`;
}
