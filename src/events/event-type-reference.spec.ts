import { eventTypeReference } from './event-type-reference';
import { SUBSCRIBABLE_EVENT_TYPES } from './event-catalogue';

describe('the event-type reference (the console’s "Event types" page)', () => {
  const reference = eventTypeReference();

  it('lists each subscribable type with its summary, its data members and one event in the envelope', () => {
    expect(reference.map((r) => r.type)).toEqual([...SUBSCRIBABLE_EVENT_TYPES]);
    const updated = reference.find((r) => r.type === 'lead.updated')!;
    expect(updated.summary).toBe("A lead's status, external_id or status_reason changed.");
    expect(updated.members.map((m) => m.name)).toEqual([
      'lead_id',
      'call_id',
      'status',
      'previous_status',
      'changes',
      'changed_by',
      'changed_by.kind',
      'changed_by.id',
      'url',
    ]);
    expect(updated.members.find((m) => m.name === 'changes')).toEqual({
      name: 'changes',
      type: 'array of string',
      required: true,
      description: expect.stringContaining('Names of the fields that changed.'),
    });
    expect(updated.example).toMatchObject({ type: 'lead.updated', test: false, livemode: true, data: { changed_by: { kind: 'api_key' } } });
    expect(Object.keys(updated.example)).toEqual(['id', 'type', 'timestamp', 'org', 'test', 'livemode', 'data']);
  });

  it('says which members may be null, with their example in the example event', () => {
    const completed = reference.find((r) => r.type === 'call.completed')!;
    expect(completed.members.find((m) => m.name === 'duration_s')).toMatchObject({ type: 'integer or null', required: true });
    expect(Object.keys(completed.example.data)).toEqual(completed.members.map((m) => m.name));
    expect(completed.example.data.duration_s).toBe(184);
  });
});
