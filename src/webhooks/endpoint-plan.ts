import { foldHealth, noSuccessFor3Days, type DeliveryDecision, type DeliveryOutcome } from './delivery-rules.js';
import type { ClaimedDelivery } from './delivery-claims.repository.js';
import type { LockedEndpoint } from './webhook-endpoints.repository.js';

export interface DecidedDelivery {
  claimed: ClaimedDelivery;
  outcome: DeliveryOutcome;
  decision: DeliveryDecision;
  isTest: boolean;
}

export interface EndpointPlan {
  endpoint: LockedEndpoint;
  /** The endpoint's health after this batch's real attempts; null when it had none. */
  health: ReturnType<typeof foldHealth> | null;
  /** Deliveries of this batch that used their last attempt. */
  exhausted: DecidedDelivery[];
  /** Why the endpoint turns off now: a 410, or exhaustion after 3 days without success. */
  disableFor: 'gone' | 'failing' | null;
  /** The runs of failures a success of this batch ended, by their failing_since (an endpoint that stays on). */
  recovered: Date[];
}

/** What one recording batch does to one endpoint. Test deliveries never count. */
export function planEndpoint(endpoint: LockedEndpoint, mine: DecidedDelivery[], now: Date): EndpointPlan {
  const real = mine.filter((d) => !d.isTest && d.outcome.kind === 'attempt');
  const ended: Date[] = [];
  const health =
    real.length === 0
      ? null
      : foldHealth(
          { lastSuccessAt: endpoint.lastSuccessAt, lastFailureAt: endpoint.lastFailureAt, failingSince: endpoint.failingSince },
          real.map((d) => ({ at: d.outcome.at, success: d.decision.succeeded })),
          (failingSince) => ended.push(failingSince),
        );
  const exhausted = real.filter((d) => d.decision.exhausted);
  let disableFor: EndpointPlan['disableFor'] = null;
  if (endpoint.status === 'enabled') {
    const lastSuccessAt = health?.lastSuccessAt ?? endpoint.lastSuccessAt;
    if (real.some((d) => d.decision.gone)) disableFor = 'gone';
    else if (exhausted.length > 0 && noSuccessFor3Days({ lastSuccessAt, healthSince: endpoint.healthSince }, now)) disableFor = 'failing';
  }
  const recovered = endpoint.status === 'enabled' && disableFor === null ? ended : [];
  return { endpoint, health, exhausted, disableFor, recovered };
}
