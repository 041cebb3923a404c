import { join } from 'node:path';
import type { AppConfig } from '../../config/app-config.js';
import { FilesystemRecordingStore } from './filesystem-recording-store.js';
import type { RecordingStore } from './recording-store.js';
import { S3RecordingStore, s3Client } from './s3-recording-store.js';

/** The one place that picks the store from RECORDING_STORE. */
export function createRecordingStore(config: AppConfig): RecordingStore {
  const store = config.recordingStore;
  if (store.kind === 's3') return new S3RecordingStore(s3Client(store), store.bucket);
  return new FilesystemRecordingStore(join(config.dataDir, 'recordings'));
}
