import { join } from 'node:path';
import type { AppConfig } from '../../config/app-config.js';
import { FilesystemRecordingStore } from './filesystem-recording-store.js';
import type { RecordingStore } from './recording-store.js';

/**
 * The one place that picks the store from RECORDING_STORE. The S3 store (and the AWS SDK under it) is loaded
 * only when chosen: it is most of what the CLI would otherwise load and never use.
 */
export async function createRecordingStore(config: AppConfig): Promise<RecordingStore> {
  const store = config.recordingStore;
  if (store.kind === 's3') {
    const { S3RecordingStore, s3Client } = await import('./s3-recording-store.js');
    return new S3RecordingStore(s3Client(store), store.bucket);
  }
  return new FilesystemRecordingStore(join(config.dataDir, 'recordings'));
}
