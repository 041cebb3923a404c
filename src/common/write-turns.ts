import { Injectable } from '@nestjs/common';

/**
 * Writers of one resource (a call, a lead, an endpoint) take turns in this process before they take a pooled
 * connection. Such writes serialise on the resource's lock in PostgreSQL anyway (an advisory lock, a row lock), and a
 * writer waiting there holds its connection: a burst of one firm's writes on one call once held the whole pool, and
 * every other firm's reads waited for it. Here the wait is a promise, so at most one writer per resource per process
 * holds a connection; the database lock still serialises writers of different processes. First come, first served.
 */
@Injectable()
export class WriteTurns {
  /** Per resource, the turn of its last writer in line: settled when that writer is done. */
  private readonly lastInLine = new Map<string, Promise<void>>();
  private queued = 0;

  /** Writers waiting for their turn now, all resources (holding no connection). */
  get waiting(): number {
    return this.queued;
  }

  /** Runs `work` once every writer of `resource` that came before, in this process, is done with its own. */
  async run<T>(resource: string, work: () => Promise<T>): Promise<T> {
    const before = this.lastInLine.get(resource);
    let finished!: () => void;
    const turn = new Promise<void>((resolve) => (finished = resolve));
    this.lastInLine.set(resource, turn);
    try {
      if (before) {
        this.queued++;
        await before.finally(() => this.queued--);
      }
      return await work();
    } finally {
      finished();
      if (this.lastInLine.get(resource) === turn) this.lastInLine.delete(resource);
    }
  }
}

/** The resource names writers take turns on: one name per call, lead or endpoint (firm-scoped where ids are). */
export const turnOf = {
  call: (orgId: string, callId: string) => `call:${orgId}/${callId}`,
  lead: (orgId: string, leadId: string) => `lead:${orgId}/${leadId}`,
  endpoint: (endpointId: string) => `endpoint:${endpointId}`,
};
