import type { OperationDoc } from '../common/http/access.decorators.js';

/** How each events operation is named and described in the OpenAPI document. */
export const LIST_EVENTS: OperationDoc = {
  id: 'listEvents',
  summary: 'List events, oldest first',
  description:
    'Every event recorded for the firm in the last 30 days, oldest first, exactly as sent to endpoints, whether or not an endpoint exists. While has_more is true, ask again with after set to next_after. An after naming an event older than 30 days answers 400.',
};

export const GET_EVENT: OperationDoc = {
  id: 'getEvent',
  summary: 'Get one event',
  description: 'One event, exactly as sent to endpoints. Events are kept 30 days.',
};
