import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { ANSWER_TAG, ifNoneMatchHits, tagOfBytes } from './entity-tags';
import { JsonAnswerWriter, SPOOL_ABOVE_BYTES } from './json-answer';

describe('If-None-Match against a strong tag', () => {
  const tag = tagOfBytes('{"a":1}');

  it.each([
    ['the tag itself', tag, true],
    ['the tag, weak', `W/${tag}`, true],
    ['a list holding it', `"x", ${tag} ,"y"`, true],
    ['a list over two header lines', ['"x"', tag], true],
    ['*', ' * ', true],
    ['another tag', '"x"', false],
    ['the tag unquoted', tag.slice(1, -1), false],
    ['nothing', undefined, false],
    ['an empty value', '', false],
  ])('%s: %s', (_label, header, hits) => {
    expect(ifNoneMatchHits(header, tag)).toBe(hits);
  });

  it('is quoted base64url SHA-256 of the exact bytes', () => {
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(tagOfBytes(Buffer.from('{"a":1}'))).toBe(tag);
    expect(tagOfBytes('{"a":2}')).not.toBe(tag);
  });
});

describe("a streamed answer's tag", () => {
  const dir = mkdtempSync(join(tmpdir(), 'entity-tags-'));
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function tagOf(parts: string[], spoolDir = dir): Promise<string> {
    const out = new JsonAnswerWriter(spoolDir);
    for (const part of parts) await out.write(part);
    const stream = out.finish('{"head":1,"items":[', ']}').getStream() as unknown as Record<symbol, string> & { destroy(): void };
    stream.destroy();
    return stream[ANSWER_TAG];
  }

  it('depends only on the bytes: the same whether spooled to a file or not, however the middle was written', async () => {
    const big = 'x'.repeat(SPOOL_ABOVE_BYTES);
    const spooled = await tagOf([big, ',"y"']);
    expect(await tagOf([big.slice(0, 10), big.slice(10), ',"y"'])).toBe(spooled);
    // An unwritable spool folder keeps the answer in memory: same bytes, same tag.
    writeFileSync(join(dir, 'a-file'), '');
    expect(await tagOf([big, ',"y"'], join(dir, 'a-file', 'answers'))).toBe(spooled);
    expect(await tagOf([big, ',"z"'])).not.toBe(spooled);
    expect(await tagOf(['1'])).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(await tagOf(['1'])).not.toBe(await tagOf(['2']));
  });
});
