import { closeSharedApps } from './support/shared-app';
import './observability/logging.cases';
import './observability/tracing.cases';
import './observability/tracing-retry.cases';
import './observability/tracing-off-and-cli.cases';
import './observability/metrics.cases';
import './observability/monitoring.cases';

/**
 * What an operator watches: request log lines, traces, metrics and the alert
 * rules over them. One module load for all; nearly every case reads the whole process (its log stream, its metrics,
 * its exported spans) and so starts its own app.
 *
 * logging comes first: nestjs-pino keeps one root logger per module registry, the first app's, and every later app
 * of the registry writes its application lines (all but the access lines) to that first app's stream. So a case
 * that reads its own app's application lines must start the first app of its registry; log-secrets and
 * request-log-context do too, and stay spec files of their own (test/*.e2e.spec.ts).
 */
afterAll(closeSharedApps);
