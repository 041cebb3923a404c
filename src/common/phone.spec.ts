import { maskPhone, normalizePhone, PHONE_FORM_PATTERN, phoneFilterValue } from './phone';

describe('phone numbers', () => {
  it.each([
    ['+13125550123', '+13125550123'],
    ['(312) 555-0123', '+13125550123'],
    ['312.555.0123', '+13125550123'],
    ['312 555 0123', '+13125550123'],
    ['1-312-555-0123', '+13125550123'],
    ['+1 (312) 555-0123', '+13125550123'],
    ['+44 20 7946 0958', '+442079460958'],
  ])('reads %j as %s', (text, e164) => {
    expect(normalizePhone(text)).toBe(e164);
  });

  it.each([[null], [undefined], [''], ['   '], ['555-0123'], ['not a number'], ['+1 000 000 0000'], ['12345']])('refuses %j', (text) => {
    expect(normalizePhone(text)).toBeNull();
  });

  describe('as a caller_number filter value', () => {
    it.each([
      ['(312) 555-0123', '+13125550123'],
      ['+44 (0)20 7946 0958', '+442079460958'],
      ['(312) 555-0123 ext. 5', '+13125550123'],
      // Of the form but not valid numbers: their digits, which no stored (always valid) number equals.
      ['(555) 555-5555', '+15555555555'],
      ['555.555.5555', '+15555555555'],
      ['1 555 555 5555', '+15555555555'],
      ['+1 555-555-5555', '+15555555555'],
      ['(555) 555-5555 x12', '+15555555555'],
      ['0123456789', '+10123456789'],
      ['+999', '+999'],
      ['+999 1234 5678', '+99912345678'],
      ['+123456789012345', '+123456789012345'],
    ])('reads %j as %s', (text, value) => {
      expect(phoneFilterValue(text)).toBe(value);
    });

    it.each([
      ['abc'],
      [''],
      ['   '],
      ['12'],
      ['555-0123'],
      ['555 5555 5555'],
      ['+0123'],
      ['+'],
      ['+1234567890123456'],
      ['555-555-5555 call me'],
      ['1'.repeat(500)],
      // libphonenumber reads these, but they are not of the form the document states.
      ['tel:+1-312-555-0123'],
      ['1-800-FLOWERS'],
      ['\uFF13\uFF11\uFF12\uFF15\uFF15\uFF15\uFF10\uFF11\uFF12\uFF13'],
      ['312/555-0123'],
      ['(312) 555-0123 x12.'],
    ])('finds %j not of the form', (text) => {
      expect(phoneFilterValue(text)).toBeNull();
    });

    it('is of the form exactly when the pattern the document serves matches', () => {
      const pattern = new RegExp(PHONE_FORM_PATTERN, 'u');
      for (const text of ['+1 (312) 555-0123', '(312) 555-0123 ext. 5', 'abc', '+0123', '555-0123', '1-800-FLOWERS']) {
        expect([text, pattern.test(text)]).toEqual([text, phoneFilterValue(text) !== null]);
      }
    });

    it('refuses a long run of separators in linear time', () => {
      const started = process.hrtime.bigint();
      expect(phoneFilterValue(`+1 ${' '.repeat(16_000)}a`)).toBeNull();
      expect(phoneFilterValue(`${'('.repeat(8_000)}312${' '.repeat(8_000)}`)).toBeNull();
      // Backtracking over both runs would take seconds; a linear scan takes well under a millisecond.
      expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(250);
    });
  });

  it('masks to the last four digits', () => {
    expect(maskPhone('+13125550123')).toBe('***-***-0123');
    expect(maskPhone(null)).toBeNull();
  });
});
