/**
 * Webhooks: the endpoint CLI and secret rotation (on one shared app), the webhook API, dispatch on day partitions,
 * delivery metrics and a worker's clean stop (each on apps of their own: they move the clock, count every statement
 * or metric of the process, or stop processes). Grouped to load the service's modules once
 * (test/support/shared-app.ts).
 */
import { closeSharedApps } from './support/shared-app';
import './webhooks/webhook-cli.cases';
import './webhooks/webhook-rotation.cases';
import './webhooks/webhook-api.cases';
import './webhooks/webhook-claims-by-day.cases';
import './webhooks/webhook-metrics.cases';
import './webhooks/webhook-crash.cases';

afterAll(closeSharedApps);
