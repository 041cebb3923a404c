import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertStorageKey, type ByteRange, type ListedObject, type RecordingStore, type StoredObject } from './recording-store.js';

/** The smallest part S3 accepts; with two parts in flight an upload holds about 10 MiB, whatever the file size. */
const PART_SIZE = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

/**
 * Recordings as objects in one S3-compatible bucket, so any number of api
 * processes share them without a shared volume. Uploads are streamed
 * multipart uploads (a part at a time, aborted on error, so nothing is left
 * visible); a download is a ranged GetObject, so a Range is served by the
 * store, never by reading the whole object.
 */
export class S3RecordingStore implements RecordingStore {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, body: Readable): Promise<void> {
    assertStorageKey(key);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: body, ContentType: 'audio/ogg' },
      partSize: PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      // The body's own error (a refusal by the intake, a client gone) is the answer, not the SDK's wrapper.
      throw body.errored ?? err;
    }
  }

  async open(key: string): Promise<StoredObject | null> {
    assertStorageKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return new S3Object(this.client, this.bucket, key, head.ContentLength ?? 0, head.ETag);
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async remove(key: string): Promise<void> {
    assertStorageKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /** Nest calls this on shutdown: closes the client's kept-alive sockets. */
  onModuleDestroy(): void {
    this.client.destroy();
  }

  async *list(): AsyncIterable<ListedObject> {
    for await (const page of paginateListObjectsV2({ client: this.client, pageSize: 1000 }, { Bucket: this.bucket })) {
      for (const o of page.Contents ?? []) {
        if (o.Key && o.LastModified) yield { key: o.Key, lastModified: o.LastModified };
      }
    }
  }
}

function isMissing(err: unknown): boolean {
  return err instanceof S3ServiceException && (err.name === 'NotFound' || err.name === 'NoSuchKey' || err.$metadata.httpStatusCode === 404);
}

class S3Object implements StoredObject {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly key: string,
    readonly size: number,
    private readonly etag: string | undefined,
  ) {}

  stream(range?: ByteRange): Readable {
    const out = new PassThrough();
    const abort = new AbortController();
    // A reader that goes away (client hung up) cancels the GET instead of letting it run to the end.
    out.on('close', () => abort.abort());
    const get = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.key,
      Range: range ? `bytes=${range.start}-${range.end}` : undefined,
      // The very bytes whose size open() saw (keys are never reused, so this only guards a misbehaving store).
      IfMatch: this.etag,
    });
    this.client
      .send(get, { abortSignal: abort.signal })
      .then((res) => pipeline(res.Body as Readable, out))
      .catch((err: unknown) => out.destroy(err as Error));
    return out;
  }

  async close(): Promise<void> {
    // Nothing is held open until stream() is called.
  }
}

/** The client for RECORDING_STORE=s3; credentials come from the SDK's default chain. */
export function s3Client(opts: { endpoint: string | null; region: string; forcePathStyle: boolean }): S3Client {
  return new S3Client({
    region: opts.region,
    endpoint: opts.endpoint ?? undefined,
    forcePathStyle: opts.forcePathStyle,
    // Checksums only where S3 requires them: self-hosted servers often lack the newer trailing-checksum encoding.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}
