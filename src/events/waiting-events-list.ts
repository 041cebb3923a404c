import { Injectable } from '@nestjs/common';
import type { ApiPrincipal } from '../common/http/principal.js';
import { AppConfig } from '../config/app-config.js';
import type { EventListDto } from './dto/event.dto.js';
import { EventWaits } from './event-waits.js';
import { EventsService, type EventListQuery } from './events.service.js';
import { feedKeyOf, type EventFeed } from './events-listener.js';
import { StandbyHorizon } from './standby-horizon.js';

/** After a notification whose event the log still holds back (an older transaction is open), re-check this soon, then slower. */
const FIRST_RECHECK_MS = 100;
/** The slowest re-check (so a held-back event still arrives within about half a second of being listable). */
const LAST_RECHECK_MS = 500;
/** The tick while the LISTEN connection is down (not yet up, or reconnecting). */
const UNLISTENED_TICK_MS = 1_000;
/** A wait ends this long before the socket's idle timeout (HTTP_IDLE_TIMEOUT_MS) would cut it. */
const IDLE_MARGIN_MS = 1_000;

/**
 * GET /v1/events?wait=N: when the page is empty, hold the request until an
 * event of the firm (of the type asked) commits, then run the page query again
 * and answer exactly as without wait; an empty page when N seconds pass, the
 * client leaves, or the process shuts down. While nothing happens a waiting
 * request costs no query and holds no connection.
 */
@Injectable()
export class WaitingEventsList {
  constructor(
    private readonly events: EventsService,
    private readonly waits: EventWaits,
    private readonly config: AppConfig,
    private readonly horizon: StandbyHorizon,
  ) {}

  /**
   * `principal`: the key and its feed (its firm and mode). `stepAside`: gives back the request's place among its key's
   * requests under way at once, called when the request starts waiting (it works only when woken, a page query).
   */
  async list(
    principal: ApiPrincipal,
    query: EventListQuery,
    waitSeconds: number,
    gone?: AbortSignal,
    stepAside: () => void = () => {},
  ): Promise<EventListDto> {
    const feed: EventFeed = { orgId: principal.orgId, livemode: principal.livemode };
    const waitMs = Math.min(waitSeconds * 1000, this.config.httpIdleTimeoutMs - IDLE_MARGIN_MS);
    if (waitMs <= 0) return this.events.list(feed, query);
    // A request that waits may answer long after its key was checked: each page re-checks the key in its own
    // statement, so a key revoked or expired meanwhile gets 401, never an event committed after that.
    const { page, heldBack } = this.events.pager(feed, query, principal);
    const deadline = Date.now() + waitMs;
    // Subscribed before the first query: an event committed while it runs still wakes this request.
    // Keyed by firm and mode: another mode's events do not wake it.
    const sub = this.waits.subscribe(feedKeyOf(feed), query.type);
    let recheckMs: number | null = null;
    // EVENTS_WAIT_FOR_STANDBY: an event held back until a standby has it is listable once the horizon moves.
    const unhook = this.horizon.onAdvance(() => recheckMs !== null && sub.wake('recheck'));
    try {
      let answer = await page();
      // Committed before this wait began but held back behind an open transaction: no notification will come for it.
      recheckMs = answer.events.length === 0 && (await heldBack()) ? FIRST_RECHECK_MS : null;
      if (answer.events.length === 0) stepAside();
      while (answer.events.length === 0) {
        const left = deadline - Date.now();
        // The wait ran out with nothing to give: the page once more, which judges the key now (401 if it stopped while
        // nothing happened) and takes what the last tick may have missed.
        if (left <= 0) return await page();
        const tick = this.waits.listening ? (recheckMs ?? left) : UNLISTENED_TICK_MS;
        const outcome = await sub.next(Math.min(left, tick), gone);
        if (outcome === 'stopped' || outcome === 'gone') break;
        if (outcome === 'tick' && recheckMs === null && this.waits.listening) continue;
        // Woken but still empty means the log holds the event back behind an open transaction, which may end with no
        // notification of its own: re-check on a short tick until the deadline.
        if (outcome === 'woken') recheckMs = FIRST_RECHECK_MS;
        else if (outcome === 'tick' && recheckMs !== null) recheckMs = Math.min(2 * recheckMs, LAST_RECHECK_MS);
        answer = await page();
        // After a re-check (the LISTEN back, or its tick while down) the event may be held back, and its notification
        // was lost with the connection: re-check on the short tick as after a notification, not at the deadline.
        if (answer.events.length === 0 && recheckMs === null && (await heldBack())) recheckMs = FIRST_RECHECK_MS;
      }
      return answer;
    } finally {
      unhook();
      sub.close();
    }
  }
}
