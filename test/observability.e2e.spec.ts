import { closeSharedApps } from './support/shared-app';
import './observability/logging.cases';
import './observability/log-secrets.cases';
import './observability/request-log-context.cases';
import './observability/tracing.cases';
import './observability/tracing-retry.cases';
import './observability/tracing-off-and-cli.cases';
import './observability/metrics.cases';
import './observability/monitoring.cases';

/**
 * What an operator watches: log lines (their context and the secrets they never hold), traces, metrics and the alert
 * rules over them. One module load for all; nearly every case reads the whole process (its log stream, its metrics,
 * its exported spans) and so starts its own app.
 */
afterAll(closeSharedApps);
