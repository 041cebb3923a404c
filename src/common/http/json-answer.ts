import { Logger, StreamableFile } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { mkdir, open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

/** What Fastify sends for an object it serialises itself: a streamed answer carries the same header. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/** Answers up to this size are sent from memory; a client that never reads one holds at most this much. */
export const SPOOL_ABOVE_BYTES = 256 * 1024;
/** Bytes read from a spooled answer at a time: what a stalled reader holds in memory beside the socket's chunk. */
const READ_CHUNK_BYTES = 64 * 1024;

const logger = new Logger('JsonAnswer');

/**
 * A JSON answer already serialised into bytes, sent with its exact
 * Content-Length and with back-pressure. A large one is spooled to a nameless
 * temporary file and streamed from there, so a client that reads slowly or
 * not at all holds one read chunk of memory, not the whole answer, and no
 * database connection either (the bytes were produced before this is called).
 * The file is unlinked as soon as it is created: nothing outlives the open
 * descriptor, which closes when the answer ends or the connection does (the
 * server's idle timeout cuts a reader that makes no progress).
 */
export async function jsonAnswer(parts: Buffer[], spoolDir: string): Promise<StreamableFile> {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const options = { type: JSON_CONTENT_TYPE, length };
  if (length > SPOOL_ABOVE_BYTES) {
    try {
      return new StreamableFile(await spool(parts, spoolDir), options);
    } catch (err) {
      // The answer is still right from memory; only the bound on a slow reader's memory is lost.
      logger.warn(`Could not spool a ${length}-byte answer to ${spoolDir}, sending it from memory: ${(err as Error).message}`);
    }
  }
  return new StreamableFile(Buffer.concat(parts, length), options);
}

async function spool(parts: Buffer[], dir: string): Promise<Readable> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${randomUUID()}.json`);
  const file = await open(path, 'wx+', 0o600);
  try {
    // Nameless from here on: the kernel frees the data when the descriptor closes, even if the process dies.
    await unlink(path);
    // Each call writes all of its part (looping over short writes) from where the previous one ended.
    for (const part of parts) await file.writeFile(part);
  } catch (err) {
    await file.close();
    await unlink(path).catch(() => undefined);
    throw err;
  }
  return file.createReadStream({ start: 0, highWaterMark: READ_CHUNK_BYTES, autoClose: true });
}
