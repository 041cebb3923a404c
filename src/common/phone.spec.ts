import { maskPhone, normalizePhone } from './phone';

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

  it('masks to the last four digits', () => {
    expect(maskPhone('+13125550123')).toBe('***-***-0123');
    expect(maskPhone(null)).toBeNull();
  });
});
