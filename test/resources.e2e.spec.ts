/**
 * The HTTP contract of the resources a firm reads and writes (calls, leads and their PATCH, events, transcripts) and
 * the whole path from ingestion to a verified webhook, one spec file so the service's modules load once. Calls, leads,
 * leads' PATCH and the transcript share one app (their assertions are scoped to their own firms); the events log asks
 * for an app without the internal token, and the end-to-end flow starts and closes its own (its receiver and env).
 */
import { closeSharedApps } from './support/shared-app';
import './resources/calls.cases';
import './resources/leads.cases';
import './resources/leads-patch.cases';
import './resources/transcript.cases';
import './resources/events.cases';
import './resources/end-to-end-flow.cases';

afterAll(closeSharedApps);
