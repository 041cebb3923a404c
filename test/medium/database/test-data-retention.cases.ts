import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ApiKeyService } from '../../../src/auth';
import { TEST_CALL_RETENTION_MS } from '../../../src/calls';
import { RetentionRunner } from '../../../src/common/retention/retention-runner';
import { demoRecordingPath } from '../../../src/demo';
import { IngestionService } from '../../../src/ingestion';
import { RecordingLinksService, RecordingSweeper, RecordingsService } from '../../../src/recordings';
import { fullCallDocument, nextCallId } from '../../support/call-documents';
import { createFirm, type TestFirm } from '../../support/factories';
import { newMediumService, type MediumService } from '../../support/medium';

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** Tables holding a call's data, each with the condition that finds one call's rows. */
const PARTS: Record<string, string> = {
  calls: 'org_id = $1 AND call_id = $2',
  call_references: 'org_id = $1 AND call_id = $2',
  transcripts: 'org_id = $1 AND call_id = $2',
  transcript_turns: 'org_id = $1 AND call_id = $2',
  leads: 'org_id = $1 AND call_id = $2',
  recordings: 'org_id = $1 AND call_id = $2',
  recording_links: 'org_id = $1 AND call_id = $2',
  events: `org_id = $1 AND data->>'call_id' = $2`,
};

/**
 * Test-mode data is kept 30 days (docs/decisions.md): the retention job deletes a test call made longer ago with its
 * references, transcript, lead, recording and links; the recording sweep then removes its stored audio; its events go
 * with every event at 30 days. No live row is touched.
 */
describe('retention of test-mode data', () => {
  let m: MediumService<RetentionRunner>;
  let firm: TestFirm;
  let testKeyId: string;

  beforeAll(async () => {
    m = await newMediumService(RetentionRunner);
    firm = await createFirm(m.module, { publish: false });
    testKeyId = (await m.module.get(ApiKeyService).create({ orgId: firm.orgId, name: 'test', set: 'read', livemode: false })).summary.id;
  });
  afterAll(() => m.close());

  /** A call of the mode with everything a call can have: references, transcript, lead, recording, a link, events. */
  async function callWithEverything(livemode: boolean): Promise<string> {
    const callId = nextCallId(livemode ? 'call_live' : 'call_test');
    await m.module.get(IngestionService).ingest(firm.orgId, fullCallDocument(), callId, { livemode });
    await m.module.get(RecordingsService).storeFromFile(firm.orgId, callId, demoRecordingPath('en', 0), 'test_helper');
    const keyId = livemode ? firm.keyIds.read : testKeyId;
    await m.module.get(RecordingLinksService).create({ orgId: firm.orgId, keyId, livemode }, callId);
    return callId;
  }

  /** How many rows each table holds for the call. */
  async function rowsOf(callId: string): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const [table, where] of Object.entries(PARTS)) {
      counts[table] = (await m.sql(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, [firm.orgId, callId]))[0].n;
    }
    return counts;
  }
  const storedObject = async (callId: string): Promise<string> => {
    const [row] = await m.sql(`SELECT storage_key FROM recordings WHERE org_id = $1 AND call_id = $2`, [firm.orgId, callId]);
    return join(m.config.dataDir, 'recordings', ...String(row.storage_key).split('/'));
  };

  it('removes a test call and all that is its own after 30 days, its audio after the sweep, and no live row', async () => {
    const live = await callWithEverything(true);
    const test = await callWithEverything(false);
    const liveRows = await rowsOf(live);
    const testRows = await rowsOf(test);
    // Every part exists to be removed (or kept): the check would prove nothing on an empty table.
    for (const rows of [liveRows, testRows])
      for (const [table, n] of Object.entries(rows)) expect({ table, some: n > 0 }).toEqual({ table, some: true });
    const [liveObject, testObject] = [await storedObject(live), await storedObject(test)];

    try {
      // An hour short of 30 days: kept.
      m.clock.advance(TEST_CALL_RETENTION_MS - HOUR);
      expect((await m.sut.run('test calls')).deleted).toBe(0);
      expect(await rowsOf(test)).toEqual(testRows);

      // Past 30 days: the test call goes, with its references, transcript and turns, lead, recording and link.
      m.clock.advance(2 * HOUR);
      expect((await m.sut.run('test calls')).deleted).toBe(1);
      expect(await rowsOf(test)).toEqual({ ...testRows, ...zero(testRows), events: testRows.events });
      expect(await rowsOf(live)).toEqual(liveRows);

      // The sweep removes the audio no row points to any more, past its grace; the live call's stays.
      await m.module.get(RecordingSweeper).sweep();
      expect({ test: existsSync(testObject), live: existsSync(liveObject) }).toEqual({ test: false, live: true });

      // Its events go with every event, once their whole day is 30 days old.
      m.clock.advance(DAY);
      await m.sut.run('events');
      expect((await rowsOf(test)).events).toBe(0);
      const { events: _liveEvents, ...liveCall } = await rowsOf(live);
      const { events: _events, ...liveBefore } = liveRows;
      expect(liveCall).toEqual(liveBefore);
    } finally {
      m.clock.reset();
    }
  });

  it('is one of the retention job’s scheduled entries', async () => {
    const runs: string[] = [];
    const run = m.sut.run.bind(m.sut);
    m.sut.run = (name, batch) => (runs.push(name), run(name, batch));
    try {
      await m.sut.scheduled();
    } finally {
      m.sut.run = run;
    }
    expect(runs).toContain('test calls');
  });
});

/** The same tables, each with no row: all but `events` go with the call. */
function zero(rows: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.keys(rows).map((table) => [table, 0]));
}
