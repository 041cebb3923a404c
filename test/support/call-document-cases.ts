import { getMetadataStorage, IS_OPTIONAL } from 'class-validator';
import { nestedMembers } from '../../src/common/validation/nested-shapes';
import { CallDocument } from '../../src/ingestion';
import { fullCallDocument, unansweredCallDocument } from './call-documents';

/**
 * Call documents the ingestion port refuses, each with the member its refusal names: the spec's cross-field
 * rules (CROSS_FIELD_CASES), and a wrong shape for every object and array member of the document (SHAPE_CASES,
 * read from the DTO). test/medium/records/ingestion.cases.ts runs them through IngestionService.
 */
export type Doc = Record<string, any>;

/** A call with no transfer: the routing record reached nothing, nobody was briefed or put through. */
export function untransferredDocument(): Doc {
  const doc = fullCallDocument({ outcome: 'not_attempted' });
  doc.handling = { trace_version: 2, config_version: 3, transfer_tool_fired: false, fires: 0, business_hours: true };
  doc.untrusted.conversation_summary = null;
  doc.transcript = {
    conversation_status: null,
    connected_name: null,
    briefings: [],
    notice: null,
    turns: doc.transcript.turns.slice(0, 4),
  };
  return doc;
}

/** [what, the document, the member the 400 names] */
export const CROSS_FIELD_CASES: [string, () => Doc, string][] = [
  ['an unanswered call with outcome connected', () => unansweredCallDocument({ outcome: 'connected' }), 'outcome'],
  ['an unanswered call with outcome declined', () => unansweredCallDocument({ outcome: 'declined' }), 'outcome'],
  ['an unanswered call with outcome no_answer', () => unansweredCallDocument({ outcome: 'no_answer' }), 'outcome'],
  ['an unanswered call with a lead', () => unansweredCallDocument({ lead: fullCallDocument().lead }), 'lead'],
  [
    'an unanswered call with a conversation summary',
    () => unansweredCallDocument({ untrusted: { conversation_summary: fullCallDocument().untrusted.conversation_summary } }),
    'untrusted.conversation_summary',
  ],
  ...(
    [
      ['category', 'new_injury_lead'],
      ['rule', 'other'],
      ['eligible', false],
      ['ineligible_reason', 'closed'],
      ['requested_person', 'none'],
      ['requested_person_name', 'Dana Harper'],
      ['gate', 'confirm_name'],
      ['chain', []],
      ['rung', []],
      ['connected', false],
      ['transfer_reason', 'empty_chain'],
    ] as const
  ).map(([field, value]): [string, () => Doc, string] => [
    `handling.${field} set when transfer_tool_fired is false`,
    () => {
      const doc = untransferredDocument();
      doc.handling[field] = value;
      return doc;
    },
    `handling.${field}`,
  ]),
  [
    'transfer_tool_fired false with fires 1',
    () => {
      const doc = untransferredDocument();
      doc.handling.fires = 1;
      return doc;
    },
    'handling.fires',
  ],
  [
    'transfer_tool_fired true with fires 0',
    () => fullCallDocument({ handling: { ...fullCallDocument().handling, fires: 0 } }),
    'handling.fires',
  ],
  [
    'an ineligible_reason on an eligible transfer',
    () => fullCallDocument({ handling: { ...fullCallDocument().handling, ineligible_reason: 'closed' } }),
    'handling.ineligible_reason',
  ],
  [
    'a gate on a transfer that was not allowed',
    () =>
      fullCallDocument({
        handling: { ...fullCallDocument().handling, eligible: false, ineligible_reason: 'closed', gate: 'confirm_name' },
      }),
    'handling.gate',
  ],
  [
    'a requested_person_name when requested_person is none',
    () => fullCallDocument({ handling: { ...fullCallDocument().handling, requested_person: 'none' } }),
    'handling.requested_person_name',
  ],
  [
    'lead.phone that is not a phone number',
    () => fullCallDocument({ lead: { ...fullCallDocument().lead, phone: 'call me maybe' } }),
    'lead.phone',
  ],
  ['lead.phone with too few digits', () => fullCallDocument({ lead: { ...fullCallDocument().lead, phone: '555-0100' } }), 'lead.phone'],
  [
    'lead.email that is not an address',
    () => fullCallDocument({ lead: { ...fullCallDocument().lead, email: 'jordan at example' } }),
    'lead.email',
  ],
  [
    'lead.email with an empty domain label',
    () => fullCallDocument({ lead: { ...fullCallDocument().lead, email: 'jordan@example..com' } }),
    'lead.email',
  ],
  ['lead.email without a domain', () => fullCallDocument({ lead: { ...fullCallDocument().lead, email: 'jordan@' } }), 'lead.email'],
  [
    'lead.phone_extension without lead.phone',
    () => fullCallDocument({ lead: { ...fullCallDocument().lead, phone: null } }),
    'lead.phone_extension',
  ],
  ['callback_extension without callback_number', () => fullCallDocument({ callback_number: null }), 'callback_extension'],
  [
    'a reference for a name that is not in about',
    () => {
      const doc = fullCallDocument();
      doc.untrusted.details.references[0].for_name = 'Somebody Else';
      return doc;
    },
    'untrusted.details.references[0].for_name',
  ],
  [
    'a staff turn in the intake',
    () => {
      const doc = fullCallDocument();
      Object.assign(doc.transcript.turns[1], { speaker: 'staff', speaker_name: 'Maya Chen' });
      return doc;
    },
    'transcript.turns[1].speaker',
  ],
  [
    'a caller turn in a briefing',
    () => {
      const doc = fullCallDocument();
      doc.transcript.turns[4].speaker = 'caller';
      return doc;
    },
    'transcript.turns[4].speaker',
  ],
  [
    'a receptionist turn in the conversation',
    () => {
      const doc = fullCallDocument();
      Object.assign(doc.transcript.turns[7], { speaker: 'receptionist' });
      return doc;
    },
    'transcript.turns[7].speaker',
  ],
  [
    'conversation turns when no staff conversation was recorded',
    () => {
      const doc = fullCallDocument();
      doc.transcript.conversation_status = null;
      return doc;
    },
    'transcript.turns[6].segment',
  ],
  [
    'briefing turns when full call records are off',
    () => {
      const doc = fullCallDocument();
      doc.transcript.conversation_status = 'not_enabled';
      doc.transcript.turns = doc.transcript.turns.slice(0, 6);
      return doc;
    },
    'transcript.turns[4].segment',
  ],
  ['a lead_id, which the service derives', () => fullCallDocument({ lead_id: 'lead_x' }), 'lead_id'],
  ['a lead_captured, which the service derives', () => fullCallDocument({ lead_captured: true }), 'lead_captured'],
  ['a transcript_covers, which the service derives', () => fullCallDocument({ transcript_covers: ['intake'] }), 'transcript_covers'],
];

type Metatype = new (...args: any[]) => unknown;
export type Step = string | number;
export interface Member {
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

export const param = (path: Step[]) => path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i ? `.${s}` : s)).join('');

export function getAt(doc: any, path: Step[]): unknown {
  return path.reduce((v, step) => (v as any)[step], doc);
}

export function setAt(doc: any, path: Step[], value: unknown): void {
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

export const MEMBERS = documentMembers(CallDocument as Metatype);
/** [the member as a param, what the wrong value is, its path, the value] */
export const SHAPE_CASES = MEMBERS.flatMap((m) =>
  wrongValues(m, getAt(fullCallDocument(), m.path)).map(([what, value]) => [param(m.path), what, m.path, value] as const),
);
