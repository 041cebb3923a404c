import type { TranscriptDto } from './dto/transcript.dto.js';
import type { TranscriptTurn } from './transcript-model.js';

/** Turns read per statement: a primary-key range, serialised and dropped before the next one is read. */
export const TURNS_PER_READ = 1000;

/** The answer's members other than the turns, in the order the document (and every earlier answer) has them. */
export type TranscriptHead = Omit<TranscriptDto, 'untrusted'>;

/**
 * Reads up to `wanted` turns through `readPage(offset, count)` and serialises
 * them page by page: what is kept is the JSON bytes of each page, never the
 * row objects (a 10,000-turn transcript is about 8 MB of text). The bytes are
 * exactly what JSON.stringify gives for the same turns inside the answer.
 */
export async function serialiseTurns(
  wanted: number,
  readPage: (offset: number, count: number) => Promise<TranscriptTurn[]>,
): Promise<{ returned: number; pages: Buffer[] }> {
  const pages: Buffer[] = [];
  let returned = 0;
  while (returned < wanted) {
    const count = Math.min(TURNS_PER_READ, wanted - returned);
    const rows = await readPage(returned, count);
    if (rows.length) pages.push(Buffer.from((returned ? ',' : '') + rows.map(turnJson).join(','), 'utf8'));
    returned += rows.length;
    if (rows.length < count) break;
  }
  return { returned, pages };
}

/** One turn with its members in the document's order. */
function turnJson(x: TranscriptTurn): string {
  return JSON.stringify({ speaker: x.speaker, speaker_name: x.speaker_name, segment: x.segment, text: x.text, start_s: x.start_s });
}

/** The whole answer's bytes: the head's members, then `"untrusted":{"turns":[...]}` around the serialised pages. */
export function transcriptAnswerParts(head: TranscriptHead, pages: Buffer[]): Buffer[] {
  const members = JSON.stringify(head);
  return [Buffer.from(`${members.slice(0, -1)},"untrusted":{"turns":[`, 'utf8'), ...pages, Buffer.from(']}}', 'utf8')];
}
