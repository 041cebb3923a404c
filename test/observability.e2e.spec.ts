import { closeSharedApps } from './support/shared-app';
import './observability/logging.cases';
import './observability/tracing.cases';
import './observability/tracing-retry.cases';
import './observability/tracing-off-and-cli.cases';
import './observability/metrics.cases';
import './observability/monitoring.cases';
import './observability/log-secrets.cases';
import './observability/configured-secrets.cases';
import './observability/request-log-context.cases';

/**
 * What an operator watches: request log lines, traces, metrics and the alert
 * rules over them. One module load for all; nearly every case reads the whole process (its log stream, its metrics,
 * its exported spans) and so starts its own app.
 *
 * nestjs-pino keeps one root logger per module registry (the first app's); every app of this file logs into one hub
 * (test/support/run-log.ts) that hands each line to the test streams of the apps open then, so the cases that read
 * their own app's application lines (logging, log-secrets, request-log-context) need not start the first app.
 */
afterAll(closeSharedApps);
