import type { OperationDoc } from '../common/http/access.decorators.js';

/** How each receptionist operation is named and described in the OpenAPI document. */
export const GET_RECEPTIONIST: OperationDoc = {
  id: 'getReceptionist',
  summary: 'Get the published receptionist settings',
  description:
    'The receptionist settings in force (read-only: they are changed in the dashboard). `draft_pending` says whether drafted changes are not yet applied.',
};
