export { RecordingsModule } from './recordings.module.js';
export { RecordingsService } from './recordings.service.js';
export type { Playback, RecordingSource, RemovedRecordingSummary, StoredRecordingSummary } from './recording-model.js';
export { RecordingLinksService, LINK_LIFETIME_MS } from './recording-links.service.js';
export { RECORDING_STORE } from './store/recording-store.js';
export type { ByteRange, RecordingStore, StoredObject } from './store/recording-store.js';
export { FilesystemRecordingStore } from './store/filesystem-recording-store.js';
export { configureRecordingsHttp } from './recordings.http.js';
export { parseRange } from './byte-range.js';
