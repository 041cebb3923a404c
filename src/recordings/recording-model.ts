import type { ByteRange, StoredObject } from './store/recording-store.js';

/** Who stored or removed a recording (the audit log's actor). */
export type RecordingSource = 'internal_api' | 'cli' | 'demo' | 'test_helper';

export interface StoredRecordingSummary {
  org_id: string;
  call_id: string;
  has_recording: boolean;
  size_bytes: number;
  sha256: string;
  /** True when an earlier recording of the call was replaced. */
  replaced: boolean;
}

export interface RemovedRecordingSummary {
  org_id: string;
  call_id: string;
  has_recording: false;
  /** False when the call had no recording (removal is idempotent). */
  removed: boolean;
}

/** What a GET streams: an open object, the byte range to send (null: all of it) and its validator. */
export interface Playback {
  object: StoredObject;
  range: ByteRange | null;
  etag: string;
}

export interface RangeRequest {
  range?: string;
  ifRange?: string;
}

/** What the audit entry of a read says about the bytes served. */
export function rangeDetails(p: Playback): Record<string, unknown> {
  return p.range
    ? { status: 206, start: p.range.start, end: p.range.end, size_bytes: p.object.size }
    : { status: 200, start: 0, end: p.object.size - 1, size_bytes: p.object.size };
}
