import { closeSharedApps } from './support/shared-app';
import './http-foundation/foundation.cases';
import './http-foundation/database-outage.cases';
import './http-foundation/conditional-reads.cases';
import './http-foundation/compression.cases';
import './http-foundation/request-codings.cases';
import './http-foundation/test-client-keep-alive.cases';

/**
 * What every answer rests on: health, the account and receptionist reads, the served document, a database that
 * drops away, ETags and 304s, compressed answers and coded request bodies, and the tests' own fetch. One spec file so the service's modules
 * load once (test/support/shared-app.ts); the cases scoped to their own firms share one app.
 */
afterAll(closeSharedApps);
