import { AsyncResource } from 'node:async_hooks';

/**
 * The process's own async context, taken when this module loads, before any
 * request: no request's log bindings (nestjs-pino's `reqId`) and no trace span.
 * Async context follows whatever starts work, so a connection, timer or loop
 * that a request happens to start first (the events LISTEN connection, opened
 * by the first waiting request) would otherwise log as that request for ever.
 */
const processContext = new AsyncResource('background-work');

/** Runs `fn`, and everything it schedules (sockets, timers, promises), outside any request's async context. */
export function runInBackground<T>(fn: () => T): T {
  return processContext.runInAsyncScope(fn);
}
