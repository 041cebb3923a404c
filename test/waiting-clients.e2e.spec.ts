/**
 * GET /v1/events?wait= and the clients built on it: waiting requests (their timings, shutdown, HTTP bounds, a key
 * stopped while they wait), the typed TypeScript client and its followEvents, and the listen command. One file so the
 * service's modules load once for all of them (test/support/shared-app.ts); the cases that share an app ask for it
 * there, the others (events-wait's timed waits, events-wait-revocation's processes and clocks) start their own.
 */
import { closeSharedApps } from './support/shared-app';
import './waiting-clients/events-wait.cases';
import './waiting-clients/events-wait-revocation.cases';
import './waiting-clients/client.cases';
import './waiting-clients/client-follow.cases';
import './waiting-clients/listen.cases';

afterAll(closeSharedApps);
