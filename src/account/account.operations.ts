import type { OperationDoc } from '../common/http/access.decorators.js';

/** How each account operation is named and described in the OpenAPI document. */
export const GET_ACCOUNT: OperationDoc = {
  id: 'getAccount',
  summary: 'Get account status and the calling key',
  description:
    "The firm's account and setup status, the next setup step, and the calling key's name, prefix, last4, scopes and expiry, so a client can check its permissions.",
};
