import { NAMING_STRATEGY, snakeCase } from './naming-strategy.js';

describe('the snake-case naming strategy', () => {
  it.each([
    ['orgId', 'org_id'],
    ['fromE164', 'from_e164'],
    ['durationS', 'duration_s'],
    ['secretLast4', 'secret_last4'],
    ['last4', 'last4'],
    ['livemode', 'livemode'],
    ['previousSecretExpiresAt', 'previous_secret_expires_at'],
    ['keyID', 'key_id'],
  ])('names property %s column %s', (property, column) => {
    expect(snakeCase(property)).toBe(column);
    expect(NAMING_STRATEGY.columnName(property, undefined, [])).toBe(column);
  });

  it("keeps a column's own name", () => {
    expect(NAMING_STRATEGY.columnName('callerNumber', 'e164', [])).toBe('e164');
  });
});
