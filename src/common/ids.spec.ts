import { eventIdMessage, isEventId, newEventId } from './ids.js';

describe('isEventId', () => {
  it('accepts the ids the service makes and refuses anything else', () => {
    expect(isEventId(newEventId())).toBe(true);
    for (const bad of ['xyz', 'evt_', 'evt_ABC', 'evt_a\u0000', `evt_${'a'.repeat(65)}`, 42, undefined]) expect(isEventId(bad)).toBe(false);
  });

  it('words the refusal with the parameter name', () => {
    expect(eventIdMessage('after')).toBe('after must be an event id (evt_...)');
  });
});
