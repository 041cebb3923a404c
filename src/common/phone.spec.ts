import { maskPhone, normalizePhone, phoneFilterValue } from './phone';

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
    ])('finds %j not of the form', (text) => {
      expect(phoneFilterValue(text)).toBeNull();
    });
  });

  it('masks to the last four digits', () => {
    expect(maskPhone('+13125550123')).toBe('***-***-0123');
    expect(maskPhone(null)).toBeNull();
  });
});
