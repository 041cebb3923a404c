import { createHash } from 'node:crypto';
import { type TestFirm } from '../../support/factories';
import { fixture } from '../../support/recordings';
import { type StoreUnderTest } from '../../support/recording-stores';
import { type TestApp } from '../../support/test-app';

export const MAX_BYTES = 100_000;
export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest();
export const caller = fixture('injury-caller.ogg');
export const greeting = fixture('receptionist-greeting.ogg');

/**
 * What ../recordings.cases.ts starts for one store and hands each topic's cases (uploads.ts, downloads.ts, links.ts,
 * contract.ts): filled in by its beforeAll, so a topic reads it in a beforeAll of its own.
 */
export interface RecordingsContext {
  store: StoreUnderTest;
  t: TestApp;
  firm: TestFirm;
  other: TestFirm;
  /** Every log line the app writes during these cases, to prove no link token is ever logged. */
  logLines: string[];
  /** Every token the cases were handed. */
  tokens: string[];
  newCall(orgId?: string): Promise<string>;
  withRecording(body?: Buffer, orgId?: string): Promise<string>;
  createLink(callId: string, key?: string): Promise<RecordingLink>;
  hasRecording(orgId: string, callId: string): Promise<boolean>;
}
export interface RecordingLink {
  token: string;
  path: string;
  body: any;
  headers: Headers;
}
