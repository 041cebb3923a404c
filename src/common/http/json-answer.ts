import { Logger, StreamableFile } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ANSWER_TAG, entityTag } from './entity-tags.js';

/** What Fastify sends for an object it serialises itself: a streamed answer carries the same header. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/** Answers up to this size stay in memory; a client that never reads one holds at most this much. */
export const SPOOL_ABOVE_BYTES = 256 * 1024;
/** Bytes read back from a spooled answer at a time: what a stalled reader holds in memory beside the socket's chunk. */
const READ_CHUNK_BYTES = 64 * 1024;

const logger = new Logger('JsonAnswer');

/** A live answer's file is named only between two calls (open, unlink); anything older is a crash's leftover. */
const LEFTOVER_AFTER_MS = 60_000;

/**
 * Deletes spool files a process left named: one that died between creating a
 * file and unlinking it. They may hold confidential text (transcripts), so a
 * process sweeps the folder when it starts. Compared with the files' own
 * modification times, which are the filesystem's clock, not the app's.
 */
export async function sweepSpoolLeftovers(spoolDir: string, now = Date.now()): Promise<number> {
  let names: string[];
  try {
    names = await readdir(spoolDir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const path = join(spoolDir, name);
    const info = await stat(path).catch(() => null);
    if (
      info &&
      now - info.mtimeMs > LEFTOVER_AFTER_MS &&
      (await unlink(path).then(
        () => true,
        () => false,
      ))
    )
      removed++;
  }
  return removed;
}

/**
 * A JSON answer serialised as it is produced (bytes, never the objects they
 * came from) and sent with its exact Content-Length and with back-pressure.
 * Once it outgrows SPOOL_ABOVE_BYTES its bytes go to a nameless temporary file
 * instead of memory and are streamed from there: a client that reads slowly
 * or not at all holds a read chunk of memory, not the answer, and no database
 * connection (everything was read before the first byte is sent). The file is
 * unlinked as soon as it is created, so nothing outlives its descriptor, which
 * closes when the answer ends or its connection does (the server's idle
 * timeout cuts a reader that makes no progress).
 */
export class JsonAnswerWriter {
  private parts: Buffer[] = [];
  private length = 0;
  private file: FileHandle | null = null;
  private spoolFailed = false;
  /** The middle's bytes hashed as they are written: the tag needs no second pass over a spooled answer. */
  private readonly middleHash = createHash('sha256');

  constructor(private readonly spoolDir: string) {}

  /** Appends the middle of the answer; what surrounds it is given to finish(), once it is known. */
  async write(text: string): Promise<void> {
    const bytes = Buffer.from(text, 'utf8');
    this.length += bytes.length;
    this.middleHash.update(bytes);
    if (this.file) {
      await this.file.writeFile(bytes);
    } else {
      this.parts.push(bytes);
      if (this.length > SPOOL_ABOVE_BYTES && !this.spoolFailed) await this.spool();
    }
  }

  /** The whole answer: `before`, what was written, `after`. The writer must not be used again. */
  finish(before: string, after: string): StreamableFile {
    const head = Buffer.from(before, 'utf8');
    const tail = Buffer.from(after, 'utf8');
    const options = { type: JSON_CONTENT_TYPE, length: head.length + this.length + tail.length };
    const file = this.file;
    this.file = null;
    const answer = file
      ? new StreamableFile(this.streamFrom(head, file, tail), options)
      : new StreamableFile(Buffer.concat([head, ...this.parts, tail], options.length), options);
    // The strong ETag (entity-tags.ts): SHA-256 over the head, the middle's SHA-256 and the tail, so the same bytes
    // always give the same tag and any changed byte another, whether the answer was spooled or not.
    const tag = entityTag(createHash('sha256').update(head).update(this.middleHash.digest()).update(tail));
    Object.assign(answer.getStream(), { [ANSWER_TAG]: tag });
    return answer;
  }

  private streamFrom(head: Buffer, file: FileHandle, tail: Buffer): Readable {
    const body = Readable.from(spooled(head, file, tail), { objectMode: false, highWaterMark: READ_CHUNK_BYTES });
    // Whether the answer ends, fails or its reader goes away (even before the first byte): the file is gone with it.
    body.once('close', () => void file.close().catch(() => undefined));
    return body;
  }

  /** Frees the spool file of an answer that will not be sent (the read failed). */
  async discard(): Promise<void> {
    const file = this.file;
    this.file = null;
    this.parts = [];
    await file?.close();
  }

  private async spool(): Promise<void> {
    await mkdir(this.spoolDir, { recursive: true, mode: 0o700 }).catch(() => undefined);
    const path = join(this.spoolDir, `${randomUUID()}.json`);
    let file: FileHandle | null = null;
    try {
      file = await open(path, 'wx+', 0o600);
      // Nameless from here on: the kernel frees the data when the descriptor closes, even if the process dies.
      await unlink(path);
      // Each call writes all of its part (looping over short writes) from where the previous one ended.
      for (const part of this.parts) await file.writeFile(part);
      [this.file, this.parts] = [file, []];
    } catch (err) {
      await file?.close();
      await unlink(path).catch(() => undefined);
      // The answer is still right from memory; only the bound on a slow reader's memory is lost.
      this.spoolFailed = true;
      logger.warn(`Could not spool an answer to ${this.spoolDir}, keeping it in memory: ${(err as Error).message}`);
    }
  }
}

/** The head, the spooled bytes read back a chunk at a time, the tail. */
async function* spooled(head: Buffer, file: FileHandle, tail: Buffer): AsyncGenerator<Buffer> {
  yield head;
  yield* file.createReadStream({ start: 0, highWaterMark: READ_CHUNK_BYTES, autoClose: false });
  yield tail;
}
