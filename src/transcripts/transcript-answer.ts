import type { JsonAnswerWriter } from '../common/http/json-answer.js';
import type { TranscriptDto } from './dto/transcript.dto.js';
import type { TurnRow } from './transcripts.repository.js';

/** Turns read per statement: a primary-key range, serialised and dropped before the next one is read. */
export const TURNS_PER_READ = 1000;

/** The answer's members other than the turns, in the order the document (and every earlier answer) has them. */
export type TranscriptHead = Omit<TranscriptDto, 'untrusted'>;

/**
 * Reads up to `wanted` turns through `readPage(written, count)` (the next turns after those written) and writes
 * them to the answer page by page: what is kept is the JSON bytes of each
 * page (spooled once large), never the row objects (a 10,000-turn transcript
 * is about 8 MB of text). The bytes are exactly what JSON.stringify gives for
 * the same turns inside the answer. Resolves to the number of turns written.
 */
export async function writeTurns(
  out: JsonAnswerWriter,
  wanted: number,
  readPage: (written: number, count: number) => Promise<TurnRow[]>,
): Promise<number> {
  let written = 0;
  while (written < wanted) {
    const count = Math.min(TURNS_PER_READ, wanted - written);
    const rows = await readPage(written, count);
    if (rows.length) await out.write((written ? ',' : '') + rows.map(turnJson).join(','));
    written += rows.length;
    if (rows.length < count) break;
  }
  return written;
}

/** One turn with its members in the document's order. */
function turnJson(x: TurnRow): string {
  return JSON.stringify({ speaker: x.speaker, speaker_name: x.speakerName, segment: x.segment, text: x.text, start_s: x.startS });
}

/** What surrounds the turns: the head's members, then `"untrusted":{"turns":[` ... `]}}`. */
export function aroundTurns(head: TranscriptHead): { before: string; after: string } {
  return { before: `${JSON.stringify(head).slice(0, -1)},"untrusted":{"turns":[`, after: ']}}' };
}
