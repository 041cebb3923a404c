import { Logger } from '@nestjs/common';
import { mkdtempSync, readdirSync, ReadStream, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { JSON_CONTENT_TYPE, SPOOL_ABOVE_BYTES, jsonAnswer } from './json-answer';

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('jsonAnswer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'json-answer-'));
  const spoolDir = join(dir, 'answers');
  // The fallback's warning is expected here.
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const parts = (total: number) => [Buffer.from('{"a":['), Buffer.alloc(total, 'x'), Buffer.from(']}')];

  it('sends a small answer from memory with its exact length', async () => {
    const file = await jsonAnswer(parts(100), spoolDir);
    expect(file.getHeaders()).toEqual({ type: JSON_CONTENT_TYPE, length: 108, disposition: undefined });
    expect(file.getStream()).not.toBeInstanceOf(ReadStream);
    expect((await bytesOf(file.getStream() as Readable)).equals(Buffer.concat(parts(100)))).toBe(true);
  });

  it('spools a large answer to a file that has no name, and streams it back byte for byte', async () => {
    const file = await jsonAnswer(parts(SPOOL_ABOVE_BYTES + 1), spoolDir);
    expect(file.getHeaders().length).toBe(SPOOL_ABOVE_BYTES + 9);
    expect(file.getStream()).toBeInstanceOf(ReadStream);
    expect(readdirSync(spoolDir)).toEqual([]);
    expect((await bytesOf(file.getStream() as Readable)).equals(Buffer.concat(parts(SPOOL_ABOVE_BYTES + 1)))).toBe(true);
  });

  it('still answers, from memory, when nothing can be spooled', async () => {
    const notADir = join(dir, 'a-file');
    writeFileSync(notADir, '');
    const file = await jsonAnswer(parts(SPOOL_ABOVE_BYTES * 2), join(notADir, 'answers'));
    expect(file.getStream()).not.toBeInstanceOf(ReadStream);
    expect((await bytesOf(file.getStream() as Readable)).equals(Buffer.concat(parts(SPOOL_ABOVE_BYTES * 2)))).toBe(true);
  });
});
