/**
 * Recordings: their HTTP contract on each store, the `call recording` CLI, the link route's CORS hook, and ranges
 * read from S3 as ranges. No app is shared: the first cases read their app's whole log, the others each bring a
 * recording store of their own. Grouped to load the service's modules once (test/support/shared-app.ts).
 */
import { closeSharedApps } from './support/shared-app';
// First: nestjs-pino sends the Nest logger's lines of every app in a spec file to its first app's stream, and these
// cases read their app's log.
import './recordings-api/recordings.cases';
import './recordings-api/recordings-cli.cases';
import './recordings-api/recordings-http.cases';
import './recordings-api/recordings-s3.cases';

afterAll(closeSharedApps);
