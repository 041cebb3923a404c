// Every request the listen command makes: paced, each with an abort controller of its own, ended by its deadline or
// by the command's stop through one listener on the stop signal (none per request: they piled up on it before).

/** Waits `ms`, or until `signal` aborts; the listener it adds is removed when it resolves. */
export function pause(ms, signal) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export class Requests {
  /**
   * @param {AbortSignal} stop the command's stop
   * @param {number} perSecond requests that may start a second (turn), after a burst of as many
   */
  constructor(stop, perSecond) {
    this.stop = stop;
    this.perSecond = perSecond;
    this.tokens = perSecond;
    this.at = performance.now();
    /** @type {Set<AbortController>} */
    this.inFlight = new Set();
    stop.addEventListener('abort', () => this.inFlight.forEach((c) => c.abort(stop.reason)), { once: true });
  }

  /** Resolves true once a request may start (a token bucket: whatever the answers, the pace holds); false once stopped. */
  async turn() {
    for (;;) {
      if (this.stop.aborted) return false;
      const now = performance.now();
      this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.at) / 1000) * this.perSecond);
      this.at = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return true;
      }
      await pause(((1 - this.tokens) / this.perSecond) * 1000, this.stop);
    }
  }

  /** `work(signal)`, its signal aborted after `deadlineMs` (the rejection is then `late()`) or when the command stops. */
  async run(deadlineMs, work, late) {
    const controller = new AbortController();
    this.inFlight.add(controller);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, deadlineMs);
    try {
      return await work(controller.signal);
    } catch (err) {
      throw timedOut ? late() : err;
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
  }
}
