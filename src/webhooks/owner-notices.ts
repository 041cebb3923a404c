import type { MailMessage } from '../mail/index.js';
import type { DisabledReason } from './webhook-model.js';
import { displayUrl } from './webhook.mapper.js';

interface NoticeEndpoint {
  id: string;
  orgId: string;
  url: string;
}

/** One or more deliveries ran out of attempts. Ids and routing facts only. */
export function deliveryFailedNotice(
  to: string,
  e: NoticeEndpoint,
  failed: { deliveryId: string; eventId: string; eventType: string; lastError: string }[],
): MailMessage {
  const lines = [
    `Webhook deliveries to ${displayUrl(e.url)} (endpoint ${e.id}) failed after every retry:`,
    '',
    ...failed.map((f) => `  - ${f.eventType} ${f.eventId} (delivery ${f.deliveryId}): ${f.lastError}`),
    '',
    'Your system can read these events with GET /v1/events, or resend one with POST /v1/webhook-deliveries/{delivery_id}/redeliver.',
  ];
  return {
    orgId: e.orgId,
    kind: 'webhook.delivery_failed',
    to,
    subject: failed.length === 1 ? 'A webhook delivery failed' : `${failed.length} webhook deliveries failed`,
    body: lines.join('\n'),
  };
}

const WHY: Record<Exclude<DisabledReason, 'owner'>, string> = {
  failing: 'it has had no successful delivery for 3 days',
  gone: 'it answered 410 Gone',
};

export function endpointDisabledNotice(to: string, e: NoticeEndpoint, reason: Exclude<DisabledReason, 'owner'>): MailMessage {
  return {
    orgId: e.orgId,
    kind: `webhook.endpoint_disabled.${reason}`,
    to,
    subject: 'A webhook endpoint was turned off',
    body: [
      `The webhook endpoint ${displayUrl(e.url)} (${e.id}) was turned off because ${WHY[reason]}.`,
      'Nothing is sent to it while it is off, and what happens meanwhile is not sent later.',
      'Turn it back on in the dashboard once it works; catch up with GET /v1/events (pass after, follow next_after).',
    ].join('\n'),
  };
}
