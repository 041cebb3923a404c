import { randomUUID } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import { mkdir, open, opendir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertStorageKey, type ByteRange, type ListedObject, type RecordingStore, type StoredObject } from './recording-store.js';

/**
 * Recordings as files under one root (DATA_DIR/recordings by default).
 * Uploads stream into `tmp/` and are renamed into place once complete and
 * flushed, so a reader never sees a partial file. Several API processes need
 * the root on a shared volume; otherwise use an object store.
 */
export class FilesystemRecordingStore implements RecordingStore {
  private readonly tmpDir: string;

  constructor(private readonly root: string) {
    this.tmpDir = join(root, 'tmp');
  }

  async put(key: string, body: Readable): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(this.tmpDir, { recursive: true, mode: 0o700 });
    const tmp = join(this.tmpDir, `${randomUUID()}.part`);
    try {
      // flush: fsync before close, so the rename below publishes complete data.
      await pipeline(body, createWriteStream(tmp, { flags: 'wx', mode: 0o600, flush: true }));
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  async open(key: string): Promise<StoredObject | null> {
    let fh: FileHandle;
    try {
      fh = await open(this.pathOf(key), constants.O_RDONLY);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      // Size from the open descriptor: a concurrent removal or replacement cannot change what this handle reads.
      const { size } = await fh.stat();
      return new FileObject(fh, size);
    } catch (err) {
      await fh.close();
      throw err;
    }
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  /** Walks the tree a directory entry at a time; tmp/ parts of writes a crash interrupted are listed too. */
  list(): AsyncIterable<ListedObject> {
    return this.walk(this.root, []);
  }

  private async *walk(dir: string, prefix: string[]): AsyncGenerator<ListedObject> {
    let entries;
    try {
      entries = await opendir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for await (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) yield* this.walk(path, [...prefix, entry.name]);
      else if (entry.isFile()) {
        const info = await stat(path).catch(() => null); // gone meanwhile (renamed into place or removed)
        if (info) yield { key: [...prefix, entry.name].join('/'), lastModified: info.mtime };
      }
    }
  }

  private pathOf(key: string): string {
    assertStorageKey(key);
    return join(this.root, ...key.split('/'));
  }
}

class FileObject implements StoredObject {
  private handedOver = false;

  constructor(
    private readonly fh: FileHandle,
    readonly size: number,
  ) {}

  stream(range?: ByteRange): Readable {
    this.handedOver = true;
    // A read stream on the open descriptor; it closes the descriptor when done or destroyed.
    return this.fh.createReadStream({ start: range?.start ?? 0, end: range?.end ?? Math.max(0, this.size - 1), autoClose: true });
  }

  async close(): Promise<void> {
    if (!this.handedOver) {
      this.handedOver = true;
      await this.fh.close();
    }
  }
}
