import type { Database, Tx } from '../database/sql.js';
import type { AuditService } from '../audit/index.js';
import { WriteTurns } from '../common/write-turns.js';
import type { LeadFromCall } from './lead-model.js';
import type { LeadRow } from './leads.repository.js';
import { LeadWritesService, type LeadChange } from './lead-writes.service.js';
import type { LeadsRepository } from './leads.repository.js';

/** Leads tells its writes to the recorder the events context registers; without one, no lead is written without its event. */
describe('LeadWritesService and its change recorder', () => {
  const row = { leadId: 'lead_1', callId: 'call_1', status: 'new', category: null, urgency: 'high' } as LeadRow;
  const repo = { insert: () => Promise.resolve(row) } as unknown as LeadsRepository;
  const tx = {} as Tx;
  const writes = () => new LeadWritesService({} as Database, repo, {} as AuditService, new WriteTurns());

  it('refuses to write a lead when no recorder is registered', async () => {
    await expect(writes().upsertForCall(tx, 'org_1', 'lead_1', false, {} as LeadFromCall, true)).rejects.toThrow(
      /No recorder of lead events/,
    );
  });

  it('tells the registered recorder of a new lead, in the same transaction', async () => {
    const told: [Tx, LeadChange][] = [];
    const w = writes();
    w.onChange((t, change) => Promise.resolve(void told.push([t, change])));
    await expect(w.upsertForCall(tx, 'org_1', 'lead_1', false, {} as LeadFromCall, true)).resolves.toEqual({
      leadId: 'lead_1',
      created: true,
    });
    expect(told).toEqual([[tx, { kind: 'created', orgId: 'org_1', lead: row }]]);
  });
});
