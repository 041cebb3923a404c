import { closeSharedApps } from './support/shared-app';
import './operators/rate-limit.cases';
import './operators/rate-limit-leases.cases';
import './operators/concurrent-requests.cases';
import './operators/cli.cases';
import './operators/ingestion.cases';
import './operators/deferred-packages.cases';

/**
 * What operators and the call pipeline drive: the per-key rate limit across processes, the admin CLI and call
 * ingestion (route and CLI), and which packages a process leaves unloaded. One module load for all; each case keeps
 * its own app, since each sets a tiny rate limit, counts whole tables or checksums the whole database.
 */
afterAll(closeSharedApps);
