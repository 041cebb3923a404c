import { closeSharedMediumServices } from '../support/shared-medium';
/**
 * A firm's account and records: account, calls, transcripts, leads and their writes, the demo seed (one shared
 * context: each case makes its own firms), then sync, ingestion and recordings (their own environment each).
 */
import './records/account.cases';
import './records/calls.cases';
import './records/transcripts.cases';
import './records/leads.cases';
import './records/lead-writes.cases';
import './records/demo.cases';
import './records/sync.cases';
import './records/ingestion.cases';
import './records/recordings.cases';

afterAll(closeSharedMediumServices);
