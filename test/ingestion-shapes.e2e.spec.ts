import { getMetadataStorage, IS_OPTIONAL } from 'class-validator';
import { nestedMembers } from '../src/common/validation/nested-shapes';
import { CallDocument } from '../src/ingestion';
import { fullCallDocument, internalEnv, nextCallId, putCall } from './support/call-documents';
import { TableChecksummer, changedTables, waitForQuiet } from './support/db-checksum';
import { createFirm, type TestFirm } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';

type Metatype = new (...args: any[]) => unknown;
type Step = string | number;
interface Member {
  path: Step[];
  kind: 'object' | 'array';
  nullable: boolean;
}

/**
 * Every object member and every array member of the call document, read from
 * the DTO's own decorators (a member added tomorrow is in the table): list
 * items are object members too, at index 0.
 */
function documentMembers(cls: Metatype, path: Step[] = []): Member[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  const optional = new Set(metadata.filter((m) => m.name === IS_OPTIONAL).map((m) => m.propertyName));
  const arrays = [...new Set(metadata.filter((m) => m.name === 'isArray').map((m) => m.propertyName))];
  const found: Member[] = arrays.map((name) => ({ path: [...path, name], kind: 'array', nullable: optional.has(name) }));
  for (const m of nestedMembers(cls)) {
    const at = m.list ? [...path, m.name, 0] : [...path, m.name];
    found.push({ path: at, kind: 'object', nullable: !m.list && m.nullable });
    found.push(...documentMembers(m.type, at));
  }
  return found;
}

const param = (path: Step[]) => path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i ? `.${s}` : s)).join('');

function getAt(doc: any, path: Step[]): unknown {
  return path.reduce((v, step) => (v as any)[step], doc);
}

function setAt(doc: any, path: Step[], value: unknown): void {
  const parent = getAt(doc, path.slice(0, -1)) as any;
  parent[path[path.length - 1]] = value;
}

/** Values that are not of the member's kind: for an object, an array (empty, or holding the valid object), a string, a number, a boolean, null where not nullable. */
function wrongValues(member: Member, valid: unknown): [string, unknown][] {
  const values: [string, unknown][] =
    member.kind === 'object'
      ? [
          ['[]', []],
          ['[object]', [valid]],
          ['a string', 'x'],
          ['a number', 1],
          ['a boolean', true],
        ]
      : [
          ['{}', {}],
          ['a string', 'x'],
          ['a number', 0],
        ];
  if (!member.nullable) values.push(['null', null]);
  return values;
}

const MEMBERS = documentMembers(CallDocument as Metatype);
const CASES = MEMBERS.flatMap((m) =>
  wrongValues(m, getAt(fullCallDocument(), m.path)).map(([what, value]) => [param(m.path), what, m.path, value] as const),
);

describe('ingestion: every object and array member of the call document refuses the wrong shape', () => {
  let t: TestApp;
  let firm: TestFirm;
  let checksums: TableChecksummer;

  beforeAll(async () => {
    t = await startTestApp({ env: internalEnv });
    firm = await createFirm(t.app);
    checksums = await TableChecksummer.open(t.databaseUrl);
    await waitForQuiet(t);
  });
  afterAll(async () => {
    await checksums.close();
    await t.close();
  });

  it('reads every nested member from the DTO', () => {
    const names = MEMBERS.map((m) => `${m.kind} ${param(m.path)}`);
    for (const expected of [
      'object untrusted',
      'object untrusted.summary',
      'object untrusted.details',
      'object untrusted.details.about[0]',
      'array untrusted.details.references',
      'object untrusted.conversation_summary',
      'array untrusted.conversation_summary.key_points',
      'object handling',
      'array handling.chain',
      'object handling.rung[0]',
      'object transcript',
      'object transcript.turns[0]',
      'object lead',
      'object lead.untrusted',
      'object lead.intake.untrusted',
    ]) {
      expect(names).toContain(expected);
    }
    // Each member's path exists in the complete document the table starts from.
    for (const m of MEMBERS) expect(getAt(fullCallDocument(), m.path)).toBeDefined();
  });

  it.each(CASES)('refuses %s as %s: 400 naming it, nothing written', async (name, _what, path, value) => {
    const doc = fullCallDocument();
    setAt(doc, path as Step[], value);
    await waitForQuiet(t);
    const before = await checksums.take();
    const r = await putCall(t, firm.orgId, nextCallId(), doc);
    expect({ status: r.status, code: r.body.code, param: r.body.param }).toEqual({ status: 400, code: 'invalid_request', param: name });
    expect(changedTables(before, await checksums.take())).toEqual([]);
  });

  // The spec gives these as objects, never "object or null" (untrusted is null only when served with caller data off).
  it.each(['untrusted', 'untrusted.summary', 'lead.untrusted', 'lead.intake.untrusted'])(
    'declares %s not nullable, so the table refuses null for it',
    (name) => {
      const member = MEMBERS.find((m) => param(m.path) === name);
      expect(member).toMatchObject({ kind: 'object', nullable: false });
      expect(CASES.filter((c) => c[0] === name).map((c) => c[1])).toContain('null');
    },
  );

  it.each(MEMBERS.filter((m) => m.kind === 'object' && m.nullable).map((m) => [param(m.path), m.path] as const))(
    'accepts null for %s, which the document declares nullable',
    async (_name, path) => {
      const doc = fullCallDocument();
      setAt(doc, path as Step[], null);
      const r = await putCall(t, firm.orgId, nextCallId(), doc);
      expect(r.status).toBe(201);
    },
  );
});
