import type { KeyedReadDoc } from '../common/http/access.decorators.js';

/** How each calls operation is named and described in the OpenAPI document. */
export const LIST_CALLS: KeyedReadDoc = {
  id: 'listCalls',
  summary: "List the firm's calls, newest first",
  description:
    "The firm's calls, newest first by start time, including unanswered ones. To sync: keep the first page's `as_of` and pass it as the next run's `updated_since`; upsert on `call_id`, since a call can come back more than once.",
  ok: 'One page of calls and the cursor to the next.',
};

export const GET_CALL: KeyedReadDoc = {
  id: 'getCall',
  summary: 'Get one call with its routing record',
  description:
    'One call with the detail-only fields: the conversation summary, the routing record (`handling`) and its plain-sentence `explanation`.',
  ok: 'The call.',
};
