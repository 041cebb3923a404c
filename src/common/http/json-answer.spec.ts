import { Logger } from '@nestjs/common';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { JSON_CONTENT_TYPE, JsonAnswerWriter, SPOOL_ABOVE_BYTES, sweepSpoolLeftovers } from './json-answer';

async function bytesOf(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe('JsonAnswerWriter', () => {
  const dir = mkdtempSync(join(tmpdir(), 'json-answer-'));
  const spoolDir = join(dir, 'answers');
  // The fallback's warning is expected here.
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Descriptors of this process open on files in the spool folder (all nameless). */
  const spooled = () =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).startsWith(spoolDir);
      } catch {
        return false;
      }
    }).length;

  /** Writes `pieces` strings of `size` characters ("é" is two bytes, so lengths are checked in bytes). */
  async function written(out: JsonAnswerWriter, pieces: number, size: number): Promise<string> {
    const all: string[] = [];
    for (let i = 0; i < pieces; i++) {
      const piece = `${i ? ',' : ''}"${'é'.repeat(size)}"`;
      all.push(piece);
      await out.write(piece);
    }
    return all.join('');
  }

  it('keeps a small answer in memory and sends it with its exact length', async () => {
    const out = new JsonAnswerWriter(spoolDir);
    const middle = await written(out, 3, 10);
    const file = out.finish('{"a":[', ']}');
    expect(spooled()).toBe(0);
    expect(file.getHeaders()).toEqual({ type: JSON_CONTENT_TYPE, length: Buffer.byteLength(`{"a":[${middle}]}`), disposition: undefined });
    expect(await bytesOf(file.getStream() as Readable)).toBe(`{"a":[${middle}]}`);
  });

  it('spools a large answer to a nameless file, streams it back byte for byte, then closes it', async () => {
    const out = new JsonAnswerWriter(spoolDir);
    const middle = await written(out, 8, SPOOL_ABOVE_BYTES / 4);
    expect(readdirSync(spoolDir)).toEqual([]);
    expect(spooled()).toBe(1);
    const file = out.finish('{"a":[', ']}');
    expect(file.getHeaders().length).toBe(Buffer.byteLength(`{"a":[${middle}]}`));
    const stream = file.getStream() as Readable;
    expect(await bytesOf(stream)).toBe(`{"a":[${middle}]}`);
    if (!stream.closed) await once(stream, 'close');
    await waitUntil(() => spooled() === 0);
  });

  it('closes the file when the reader goes away before the first byte, or the answer is discarded', async () => {
    const gone = new JsonAnswerWriter(spoolDir);
    await written(gone, 4, SPOOL_ABOVE_BYTES / 2);
    const stream = gone.finish('[', ']').getStream() as Readable;
    stream.destroy();
    await waitUntil(() => spooled() === 0);
    const failed = new JsonAnswerWriter(spoolDir);
    await written(failed, 4, SPOOL_ABOVE_BYTES / 2);
    expect(spooled()).toBe(1);
    await failed.discard();
    expect(spooled()).toBe(0);
  });

  it('still answers, from memory, when nothing can be spooled', async () => {
    const notADir = join(dir, 'a-file');
    writeFileSync(notADir, '');
    const out = new JsonAnswerWriter(join(notADir, 'answers'));
    const middle = await written(out, 4, SPOOL_ABOVE_BYTES / 2);
    expect(await bytesOf(out.finish('[', ']').getStream() as Readable)).toBe(`[${middle}]`);
  });
});

/** Polls a condition that becomes true once a file handle's close (asynchronous) has gone through. */
async function waitUntil(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
}

describe('sweepSpoolLeftovers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'json-answer-sweep-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('removes spool files a crash left named, and only those', async () => {
    const stale = join(dir, 'stale.json');
    const live = join(dir, 'live.json');
    const other = join(dir, 'notes.txt');
    mkdirSync(dir, { recursive: true });
    for (const f of [stale, live, other]) writeFileSync(f, '{"untrusted":{"turns":[]}}');
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    utimesSync(stale, twoMinutesAgo, twoMinutesAgo);
    utimesSync(other, twoMinutesAgo, twoMinutesAgo);
    expect(await sweepSpoolLeftovers(dir)).toBe(1);
    expect([existsSync(stale), existsSync(live), existsSync(other)]).toEqual([false, true, true]);
    expect(await sweepSpoolLeftovers(join(dir, 'no-such-folder'))).toBe(0);
  });
});
