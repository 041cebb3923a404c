export { TranscriptsModule } from './transcripts.module.js';
export { TranscriptsService } from './transcripts.service.js';
export type { TranscriptInput, PreparedTranscript, TranscriptTurn } from './transcript-model.js';
