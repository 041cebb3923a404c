import { TEST_INTERNAL_TOKEN } from './secrets';
import type { HttpResult, TestApp } from './test-app';

let seq = 0;
/** A unique call id per test process. */
export const nextCallId = (prefix = 'call_t') => `${prefix}${process.pid}_${++seq}_${Math.random().toString(36).slice(2, 8)}`;

/** A complete call document: answered, transferred and connected, with details, references, transcript and a lead with intake. */
export function fullCallDocument(overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    started_at: '2026-03-02T15:04:05.000Z',
    duration_s: 312,
    answered: true,
    category: 'new_injury_lead',
    urgency: 'high',
    language: 'en',
    outcome: 'connected',
    from: '+1 (312) 555-0123',
    callback_number: '312.555.0188',
    callback_extension: '42',
    processing_complete: true,
    config_version: 3,
    untrusted: {
      summary: { reason: 'Rear-ended on I-90', message: 'Wants to talk to an attorney today.' },
      caller_name: 'Jordan Reyes',
      details: {
        about: [{ name: 'Ana Reyes', relation: 'injured_party' }],
        caller_organization: null,
        asked_for: 'Dana Harper',
        message_for: null,
        best_time: 'after 5pm',
        references: [
          { kind: 'claim_number', value: 'clm-778 21/b', for_name: 'Ana Reyes' },
          { kind: 'police_report_number', value: 'RD 2026-0042', for_name: null },
        ],
        generated_at: '2026-03-02T15:10:00.000Z',
      },
      conversation_summary: {
        covers: ['intake', 'briefing', 'conversation'],
        conversation_status: 'complete',
        staff_name: 'Maya Chen',
        summary: 'Maya took the details and booked a consultation.',
        outcome: 'Consultation booked',
        key_points: ['Rear-end collision', 'Neck pain'],
        confirmed_details: [{ label: 'Date of accident', value: 'March 1', said_by: 'caller' }],
        next_steps: ['Send intake forms'],
        generated_at: '2026-03-02T15:11:00.000Z',
      },
    },
    handling: {
      trace_version: 2,
      config_version: 3,
      transfer_tool_fired: true,
      fires: 1,
      business_hours: true,
      category: 'new_injury_lead',
      rule: 'new_injury_lead',
      eligible: true,
      ineligible_reason: null,
      requested_person: 'exact',
      requested_person_name: 'Dana Harper',
      gate: null,
      chain: ['Maya Chen', 'Dana Harper'],
      rung: [{ name: 'Maya Chen', outcome: 'connected' }],
      connected: true,
      transfer_reason: null,
    },
    transcript: {
      conversation_status: 'complete',
      connected_name: 'Maya Chen',
      briefings: [{ attempt: 1, name: 'Maya Chen', outcome: 'connected', start_turn: 4, turn_count: 2 }],
      notice: null,
      turns: [
        { speaker: 'receptionist', speaker_name: null, segment: 'intake', text: 'Harper Injury Law, this is Ava.', start_s: 0 },
        { speaker: 'caller', speaker_name: null, segment: 'intake', text: 'Hi, I was in a crash.', start_s: 3.5 },
        { speaker: 'caller', speaker_name: null, segment: 'intake', text: 'Yesterday on I-90.', start_s: 5 },
        {
          speaker: 'receptionist',
          speaker_name: null,
          segment: 'intake',
          text: 'I am sorry to hear that. Let me get someone.',
          start_s: 8,
        },
        {
          speaker: 'receptionist',
          speaker_name: null,
          segment: 'briefing',
          text: 'Maya, I have Jordan on the line about a rear-end crash.',
          start_s: 20,
        },
        { speaker: 'staff', speaker_name: 'Maya Chen', segment: 'briefing', text: 'Put them through.', start_s: 25 },
        { speaker: 'staff', speaker_name: 'Maya Chen', segment: 'conversation', text: 'Hi Jordan, this is Maya.', start_s: 30 },
        { speaker: 'caller', speaker_name: null, segment: 'conversation', text: 'Hi Maya.', start_s: 33 },
      ],
    },
    lead: {
      phone: '(312) 555-0188',
      phone_extension: '42',
      email: 'jordan@example.com',
      intake_completeness: 0.75,
      untrusted: { name: 'Jordan Reyes', incident_date: '2026-03-01' },
      intake: {
        extracted_at: '2026-03-02T15:12:00.000Z',
        completeness: 0.75,
        untrusted: {
          caller_name: 'Jordan Reyes',
          caller_phone: '312 555 0188',
          incident_date: '2026-03-01',
          incident_location: 'I-90 near Exit 12',
          injuries: 'Neck pain',
          hospitalized: false,
          police_report_filed: true,
        },
      },
    },
    ...overrides,
  };
}

/** An unanswered call: the caller hung up before the receptionist spoke. */
export function unansweredCallDocument(overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    started_at: '2026-03-02T16:00:00.000Z',
    duration_s: 4,
    answered: false,
    category: null,
    urgency: null,
    language: null,
    outcome: 'not_attempted',
    from: '+13125550999',
    processing_complete: true,
    ...overrides,
  };
}

/** PUT /internal/v1/orgs/{org}/calls/{id} with the internal token. */
export function putCall(t: TestApp, orgId: string, callId: string, doc: unknown): Promise<HttpResult> {
  return t.request('PUT', `/internal/v1/orgs/${orgId}/calls/${encodeURIComponent(callId)}`, {
    body: doc,
    headers: { authorization: `Bearer ${TEST_INTERNAL_TOKEN}` },
  });
}

/** Ingest and insist it worked; returns the answer body. */
export async function ingestOk(t: TestApp, orgId: string, callId: string, doc: unknown): Promise<any> {
  const r = await putCall(t, orgId, callId, doc);
  if (r.status !== 200 && r.status !== 201) throw new Error(`ingestion failed: ${r.status} ${r.text}`);
  return r.body;
}

export const internalEnv = { INTERNAL_API_TOKEN: TEST_INTERNAL_TOKEN };
