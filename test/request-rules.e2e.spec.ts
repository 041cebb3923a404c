/**
 * What the service enforces on a request, and that the served document states the same rules: the query values and
 * JSON bodies each operation accepts, the rate limit, one declaration per route read by every stage, 405 for a method
 * a path lacks, the statuses shared code answers before any handler, and the stages a declaration drives. One spec
 * file, so the service's modules load once for all of them (test/support/shared-app.ts).
 *
 * Route stages come first: its JSON.parse spy counts the parses of the whole process, so it runs before any case whose
 * app delivers webhooks in the background. Route declarations (it reads /metrics) and operation statuses (its own
 * database behind a proxy it cuts, a tiny rate limit, the clock moved) keep apps of their own.
 */
import { closeSharedApps } from './support/shared-app';
import './request-rules/route-stages.cases';
import './request-rules/method-not-allowed.cases';
import './request-rules/openapi-request-bodies.cases';
import './request-rules/openapi-query-parameters.cases';
import './request-rules/openapi-rate-limit.cases';
import './request-rules/route-declarations.cases';
import './request-rules/operation-statuses.cases';
import './request-rules/idempotency-statuses.cases';

afterAll(closeSharedApps);
