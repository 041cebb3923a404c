import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../common/errors/problems.js';

const OGG_CAPTURE_PATTERN = Buffer.from('OggS', 'latin1');

export const notOgg = () =>
  new UnsupportedMediaTypeError('The body is not an Ogg stream: an Ogg Opus recording starts with the capture pattern "OggS".');

export const recordingTooLarge = (maxBytes: number) =>
  new PayloadTooLargeError(`The recording is larger than the limit of ${maxBytes} bytes (RECORDING_MAX_BYTES).`, {
    max_bytes: maxBytes,
  });

/**
 * Sits between the upload and the store: passes chunks through unchanged
 * while checking that the stream starts with "OggS" and stays within the
 * size limit, and hashes it on the way. An error here aborts the store's
 * write, which then leaves nothing behind. Holds at most one chunk.
 */
export class RecordingIntake extends Transform {
  bytes = 0;
  private head = Buffer.alloc(0);
  private checked = false;
  private readonly hash = createHash('sha256');

  constructor(private readonly maxBytes: number) {
    super();
  }

  /** SHA-256 of everything that passed, once the stream has ended. */
  digest(): Buffer {
    return this.hash.digest();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return done(recordingTooLarge(this.maxBytes));
    if (!this.checked) {
      this.head = Buffer.concat([this.head, chunk.subarray(0, OGG_CAPTURE_PATTERN.length - this.head.length)]);
      if (this.head.length >= OGG_CAPTURE_PATTERN.length) {
        if (!this.head.equals(OGG_CAPTURE_PATTERN)) return done(notOgg());
        this.checked = true;
      }
    }
    this.hash.update(chunk);
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    done(this.checked ? null : notOgg());
  }
}
