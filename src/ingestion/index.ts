export { IngestionModule } from './ingestion.module.js';
export { IngestionService } from './ingestion.service.js';
export type { IngestMode, IngestResult, ValidatedCall } from './ingestion.service.js';
export { CallDocument } from './dto/call-document.dto.js';
