/** The spec's enumerations for calls (and the leads that copy them). */
export const CATEGORIES = [
  'new_injury_lead',
  'existing_client',
  'judge_court',
  'process_server',
  'opposing_counsel',
  'referring_attorney',
  'insurance_adjuster',
  'medical_provider',
  'litigation_funding',
  'out_of_practice',
  'sales',
  'wrong_number',
  'other',
] as const;
export const URGENCIES = ['high', 'normal', 'low'] as const;
export const LANGUAGES = ['en', 'es', 'mixed', 'unknown'] as const;
export const OUTCOMES = ['connected', 'declined', 'caller_gone', 'no_answer', 'not_attempted'] as const;
export const CONVERSATION_STATUSES = ['complete', 'partial', 'failed', 'not_enabled'] as const;
export const SEGMENTS = ['intake', 'briefing', 'conversation'] as const;
export const SPEAKERS = ['caller', 'receptionist', 'staff'] as const;
export const ABOUT_RELATIONS = ['client', 'injured_party', 'adverse_party', 'other'] as const;
export const REFERENCE_KINDS = ['claim_number', 'policy_number', 'case_number', 'police_report_number', 'other'] as const;

export type Category = (typeof CATEGORIES)[number];
export type Segment = (typeof SEGMENTS)[number];

/** A reference's `key`: its letters and digits, upper-cased (also how the `reference` filter is compared). */
export function referenceKey(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]/g, '')
    .toUpperCase();
}
