import { durationAdjective, durationText } from './duration-text.js';

describe('durationText', () => {
  it('words a whole number of units as the document does', () => {
    expect(durationText(3_600_000, 'hour')).toBe('one hour');
    expect(durationText(15 * 60_000, 'minute')).toBe('15 minutes');
    expect(durationText(30 * 86_400_000, 'day')).toBe('30 days');
    expect(durationText(86_400_000, 'hour')).toBe('24 hours');
    expect(durationAdjective(3_600_000, 'hour')).toBe('one-hour');
    expect(durationAdjective(15 * 60_000, 'minute')).toBe('15-minute');
  });

  it('refuses a duration the unit cannot state exactly', () => {
    expect(() => durationText(90 * 60_000, 'hour')).toThrow('is not a whole number of hours');
    expect(() => durationText(0, 'day')).toThrow();
  });
});
