import type { KeyedReadDoc, OperationDoc } from '../common/http/access.decorators.js';

/** How each leads operation is named and described in the OpenAPI document. */
export const LIST_LEADS: KeyedReadDoc = {
  id: 'listLeads',
  summary: "List the firm's leads, newest capture first",
  description:
    "The firm's leads, newest capture first. Poll with `updated_since` set to the previous run's `as_of`; upsert on `lead_id`, since a lead can come back more than once.",
  ok: 'One page of leads and the cursor to the next.',
};

export const GET_LEAD: KeyedReadDoc = {
  id: 'getLead',
  summary: 'Get one lead with its intake',
  description: 'One lead as the list shows it, plus the full intake the receptionist extracted (null for a contact-only lead).',
  ok: 'The lead and its intake.',
};

export const PATCH_LEAD: OperationDoc = {
  id: 'patchLead',
  summary: "Set a lead's status, the firm's own id, or the status note",
  description:
    'Each sent field replaces the stored value; omitted fields are kept. Sending values the lead already has changes nothing and answers 200 with changed false. With expected_status, a lead at another status answers 409 `status_conflict` and nothing changes. A change emits lead.updated.',
};
