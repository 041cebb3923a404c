import type { AuditActor } from '../audit/index.js';
import { InvalidInputError } from '../common/errors/invalid-input.js';
import { NotFoundError } from '../common/errors/problems.js';
import { isUuid } from '../common/ids.js';
import type { Tx } from '../database/sql.js';
import type { WebhookEndpointEntity } from './entities/webhook-endpoint.entity.js';
import type { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';

/**
 * Who changes an endpoint: the owner through the CLI (any endpoint, by its id), or a console session, which
 * reaches only its own firm's endpoints of its own mode; any other id answers 404 exactly like an unknown one.
 */
export interface EndpointActor {
  actor: AuditActor;
  scope?: { orgId: string; livemode: boolean };
}

export const OWNER: EndpointActor = { actor: { type: 'owner', id: null } };

export const endpointNotFound = (id: string) => new NotFoundError('The webhook endpoint', `no webhook endpoint with id "${id}"`);

/**
 * The endpoint, locked for a change. By id alone (the CLI): an id that is not a uuid is a usage error. Within a
 * scope (a console session): anything but its own firm's endpoint of its mode answers 404 exactly like an unknown id.
 */
export async function lockEndpointFor(
  endpoints: WebhookEndpointsRepository,
  tx: Tx,
  id: string,
  by: EndpointActor,
): Promise<WebhookEndpointEntity> {
  if (!isUuid(id)) {
    if (by.scope) throw endpointNotFound(id);
    throw new InvalidInputError(null, `"${id}" is not a webhook endpoint id`);
  }
  const e = await endpoints.lockById(tx, id.toLowerCase());
  if (!e || (by.scope && (e.orgId !== by.scope.orgId || e.livemode !== by.scope.livemode))) throw endpointNotFound(id);
  return e;
}
