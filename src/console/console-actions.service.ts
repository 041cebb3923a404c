import { Injectable } from '@nestjs/common';
import type { AuditActor } from '../audit/index.js';
import {
  DEFAULT_ROTATION_OVERLAP_MS,
  EndpointDisabledError,
  WebhookDeliveriesService,
  WebhookEndpointsService,
  WebhookEndpointUpdatesService,
  type EndpointActor,
  type RotatedSecret,
  type WebhookDeliveryDto,
  type WebhookEndpointDto,
} from '../webhooks/index.js';
import type { ConsoleSession } from './console-session.js';
import { NotFoundError } from '../common/errors/problems.js';
import { isUuid } from '../common/ids.js';

export interface AddedEndpoint {
  endpoint: WebhookEndpointDto;
  secret: string;
}

const actorOf = (session: ConsoleSession): AuditActor => ({ type: 'console_session', id: session.id });
/** The session acts as its firm's owner, on its own firm's endpoints of its own mode only. */
const asOwner = (session: ConsoleSession): EndpointActor => ({
  actor: actorOf(session),
  scope: { orgId: session.orgId, livemode: session.livemode },
});

/** The webhooks context's refusal of a send to an endpoint that is off, in the console's own words (its "Enable" button). */
async function inConsoleWords<T>(send: Promise<T>): Promise<T> {
  try {
    return await send;
  } catch (e) {
    if (!(e instanceof EndpointDisabledError)) throw e;
    const reason = String(e.extra.disabled_reason);
    throw new EndpointDisabledError(`This endpoint is turned off (${reason}), so nothing can be sent to it. Enable it first.`, e.extra);
  }
}

/**
 * The console's buttons. Each is the same service call the CLI (endpoints) or the API (test, redeliver) makes, with
 * the session's firm and mode as its scope and the session as the audit log's actor: every rule (https and public
 * targets, 5 endpoints, at least one type, 5 tests and resends a minute, 409 while turned off) is the webhooks
 * context's own.
 */
@Injectable()
export class ConsoleActionsService {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly updates: WebhookEndpointUpdatesService,
    private readonly deliveries: WebhookDeliveriesService,
  ) {}

  add(session: ConsoleSession, input: { url: string; description?: string; types: string | string[] }): Promise<AddedEndpoint> {
    return this.endpoints.create({
      orgId: session.orgId,
      livemode: session.livemode,
      url: input.url,
      description: input.description,
      eventTypes: input.types,
      actor: actorOf(session),
    });
  }

  /** "Save": the CLI's `endpoint update` rule (description and types; never the URL; at least one type). */
  update(
    session: ConsoleSession,
    endpointId: string,
    input: { description: string; types: string | string[] },
  ): Promise<WebhookEndpointDto> {
    return this.updates.update(endpointId, { description: input.description, eventTypes: input.types }, asOwner(session));
  }

  sendTest(session: ConsoleSession, endpointId: string): Promise<WebhookDeliveryDto> {
    return inConsoleWords(this.deliveries.sendTest(session, this.checkedId(endpointId), actorOf(session)));
  }

  /** "Resend" on a delivery of the endpoint whose page it is on: another endpoint's delivery answers 404. */
  async resend(session: ConsoleSession, endpointId: string, deliveryId: string): Promise<WebhookDeliveryDto> {
    const endpoint = await this.endpoints.get(session, endpointId);
    const id = this.checkedId(deliveryId, 'The webhook delivery');
    return inConsoleWords(this.deliveries.redeliver(session, id, actorOf(session), endpoint.id));
  }

  disable(session: ConsoleSession, endpointId: string): Promise<WebhookEndpointDto> {
    return this.endpoints.disable(endpointId, asOwner(session));
  }

  enable(session: ConsoleSession, endpointId: string): Promise<WebhookEndpointDto> {
    return this.endpoints.enable(endpointId, asOwner(session));
  }

  /** A new secret, with the CLI's default overlap: the old one keeps signing alongside it for 24 hours. */
  rotateSecret(session: ConsoleSession, endpointId: string): Promise<RotatedSecret> {
    return this.endpoints.rotateSecret(endpointId, DEFAULT_ROTATION_OVERLAP_MS, asOwner(session));
  }

  delete(session: ConsoleSession, endpointId: string): Promise<{ id: string; deleted: true }> {
    return this.endpoints.delete(endpointId, asOwner(session));
  }

  /** A path id that is not a uuid names nothing: 404 like an unknown id (the API's 400 is for API clients). */
  private checkedId(id: string, what = 'The webhook endpoint'): string {
    if (!isUuid(id)) throw new NotFoundError(what);
    return id;
  }
}
