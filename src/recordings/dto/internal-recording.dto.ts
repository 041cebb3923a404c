/** Answers of the internal recording routes (not in the public OpenAPI document). */
export class StoredRecordingDto {
  org_id: string;
  call_id: string;
  has_recording: true;
  size_bytes: number;
  /** Hex SHA-256 of the stored bytes, for the pipeline to compare. */
  sha256: string;
  replaced: boolean;
}

export class RemovedRecordingDto {
  org_id: string;
  call_id: string;
  has_recording: false;
  removed: boolean;
}
