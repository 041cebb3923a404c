import { alreadyApplied, applyPatch, changedFields, expectedStatusHolds, type FirmFields } from './lead-patch-rules';

const lead = (over: Partial<FirmFields> = {}): FirmFields => ({ status: 'new', external_id: null, status_reason: null, ...over });

describe('lead PATCH rules', () => {
  it('expected_status applies only with status, and holds at the expected or the requested status', () => {
    expect(expectedStatusHolds({ expected_status: 'signed' }, lead())).toBe(true);
    expect(expectedStatusHolds({ status: 'contacted', expected_status: 'new' }, lead())).toBe(true);
    expect(expectedStatusHolds({ status: 'contacted', expected_status: 'signed' }, lead())).toBe(false);
    expect(expectedStatusHolds({ status: 'contacted', expected_status: 'new' }, lead({ status: 'contacted' }))).toBe(true);
    expect(expectedStatusHolds({ status: 'signed', expected_status: 'new' }, lead({ status: 'contacted' }))).toBe(false);
  });

  it('sent members replace, null clears, omitted members stay', () => {
    const current = lead({ status: 'contacted', external_id: 'CRM-1', status_reason: 'called' });
    expect(applyPatch({ status: 'signed' }, current)).toEqual({ status: 'signed', external_id: 'CRM-1', status_reason: 'called' });
    expect(applyPatch({ external_id: null }, current)).toEqual({ status: 'contacted', external_id: null, status_reason: 'called' });
    expect(applyPatch({ status_reason: 'x' }, current)).toEqual({ status: 'contacted', external_id: 'CRM-1', status_reason: 'x' });
    expect(applyPatch({}, current)).toEqual(current);
  });

  it('names the changed fields in the spec order, none for a repeat of the current values', () => {
    const current = lead({ status: 'contacted', external_id: 'A' });
    expect(changedFields(applyPatch({ status_reason: 'r', status: 'signed' }, current), current)).toEqual(['status', 'status_reason']);
    expect(changedFields(applyPatch({ status: 'contacted', external_id: 'A' }, current), current)).toEqual([]);
    expect(changedFields(applyPatch({ external_id: null }, current), current)).toEqual(['external_id']);
  });

  it('treats a patch whose every sent value is already there as applied', () => {
    const now = lead({ status: 'signed', external_id: 'A' });
    expect(alreadyApplied({ status: 'signed' }, now)).toBe(true);
    expect(alreadyApplied({ status: 'signed', external_id: 'A', expected_status: 'new' }, now)).toBe(true);
    expect(alreadyApplied({ status: 'signed', external_id: null }, now)).toBe(false);
    expect(alreadyApplied({ status: 'rejected' }, now)).toBe(false);
  });
});
