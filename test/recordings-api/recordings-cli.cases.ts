import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordingCommands } from '../../src/cli/commands/recording.commands';
import { cliFailure } from '../../src/cli/failures';
import { DomainError } from '../../src/common/errors/domain-error';
import { RecordingsService } from '../../src/recordings';
import { createFirm, type TestFirm } from '../support/factories';
import { FIXTURES, fixture, getBytes, insertCall } from '../support/recordings';
import { RECORDING_STORES, startStore, type StoreUnderTest } from '../support/recording-stores';
import { runCli } from '../support/cli';
import { runCliInProcess } from '../support/cli-in-process';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * The compiled CLI (npm test builds first), on the test's database and recording store: per store, one real process
 * stores a file (the process builds its own store from the environment, and prints one JSON object). The command's
 * other rules run in-process through the CLI's own parser, command table and failure map, on the test app's
 * services (configured by the same environment): a CLI process costs ~2 s of CPU just to load.
 */
const cli = (t: TestApp, store: StoreUnderTest, args: string[]) => runCli(args, { databaseUrl: t.databaseUrl, env: store.env });

describe.each(RECORDING_STORES)('CLI: call recording (%s store)', (kind) => {
  let store: StoreUnderTest;
  let t: TestApp;
  let firm: TestFirm;
  const callId = 'call_cli_recording';

  beforeAll(async () => {
    store = await startStore(kind);
    t = await startTestApp({ env: store.env });
    firm = await createFirm(t.app);
    await insertCall(t, firm.orgId, callId);
  });
  afterAll(async () => {
    await t?.close();
    await store?.close();
  });

  it('--file stores the recording (one JSON object with --json), served by the API', async () => {
    const file = join(FIXTURES, 'spanish-caller.ogg');
    const r = await cli(t, store, ['call', 'recording', '--org', firm.slug, '--call', callId, '--file', file, '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const bytes = fixture('spanish-caller.ogg');
    expect(r.json).toEqual({
      org_id: firm.orgId,
      call_id: callId,
      has_recording: true,
      size_bytes: bytes.length,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      replaced: false,
    });
    const got = await getBytes(t, `/v1/calls/${callId}/recording`, { key: firm.keys.read });
    expect(got.status).toBe(200);
    expect(got.bytes.equals(bytes)).toBe(true);
    const [audit] = await t.sql(`SELECT actor_type, actor_id FROM audit_log WHERE org_id = $1 AND action = 'recording.stored'`, [
      firm.orgId,
    ]);
    expect(audit).toEqual({ actor_type: 'system', actor_id: 'cli' });
  });

  it('refuses a file that is not Ogg: exit 1 and the reason', async () => {
    const notOgg = join(store.env.DATA_DIR, 'not-ogg.wav');
    writeFileSync(notOgg, Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(100)]));
    const r = await runCliInProcess(t.app, ['call', 'recording', '--org', firm.slug, '--call', callId, '--file', notOgg, '--json']);
    expect(r.code).toBe(1);
    expect(r.message).toMatch(/^The body is not an Ogg stream/);
  });

  const run = (flags: string[]) => runCliInProcess(t.app, ['call', 'recording', '--org', firm.slug, '--call', callId, ...flags]);

  it.each([
    ['--file and --remove together', ['--file', join(FIXTURES, 'injury-caller.ogg'), '--remove'], 2, /exactly one of --file/],
    ['neither --file nor --remove', [], 2, /exactly one of --file/],
    ['a missing file', ['--file', '/nonexistent/recording.ogg'], 1, /cannot read file/],
  ])('refuses %s', async (_label, flags, exitCode, message) => {
    const r = await run(flags);
    expect(r.code).toBe(exitCode);
    expect(r.message).toMatch(message);
  });

  /** A call of its own with the Spanish fixture stored, so each test stands on its own data. */
  async function callWithRecording(id: string): Promise<string> {
    await insertCall(t, firm.orgId, id);
    await t.app.get(RecordingsService).storeFromFile(firm.orgId, id, join(FIXTURES, 'spanish-caller.ogg'), 'cli');
    return id;
  }
  const oggFiles = async () => (await store.objects()).filter((f) => f.endsWith('.ogg'));

  it('refuses an unknown call with the 404 detail, leaving the stored recording alone', async () => {
    const kept = await callWithRecording('call_cli_kept');
    const files = await oggFiles();
    // The service's not_found, as the CLI words it (its detail, exit 1).
    const err = await recordingCommands[0]
      .run({
        app: t.app,
        flags: { org: firm.slug, call: 'call_nope', file: join(FIXTURES, 'injury-caller.ogg') },
        readInput: async () => '',
      })
      .catch((e) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err.code).toBe('not_found');
    expect(err.detail).toBe('The call was not found.');
    expect(cliFailure(err)).toEqual({ exitCode: 1, message: 'The call was not found.' });
    expect((await getBytes(t, `/v1/calls/${kept}/recording`, { key: firm.keys.read })).bytes.equals(fixture('spanish-caller.ogg'))).toBe(
      true,
    );
    expect(await oggFiles()).toEqual(files);
  });

  it('--remove removes it (and says so in human form when there is nothing left)', async () => {
    const removed = await callWithRecording('call_cli_removed');
    const files = await oggFiles();
    const r = await runCliInProcess(t.app, ['call', 'recording', '--org', firm.orgId, '--call', removed, '--remove', '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ org_id: firm.orgId, call_id: removed, has_recording: false, removed: true });
    expect((await t.get(`/v1/calls/${removed}/recording`, { key: firm.keys.read })).status).toBe(404);
    expect(await oggFiles()).toHaveLength(files.length - 1);
    const again = await runCliInProcess(t.app, ['call', 'recording', '--org', firm.slug, '--call', removed, '--remove']);
    expect(again.code).toBe(0);
    expect(again.text).toBe(`call ${removed} had no recording`);
  });
});
