export const LEAD_STATUSES = ['new', 'contacted', 'signed', 'rejected'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];
/** What a PATCH may set (a lead never goes back to new). */
export const SETTABLE_STATUSES = ['contacted', 'signed', 'rejected'] as const;
/** Who can change a lead's firm-owned fields: an API key, or an AI assistant connector. */
export const LEAD_CHANGED_BY_KINDS = ['api_key', 'connector'] as const;

/** intake.untrusted as stored: every field of the spec, each nullable. */
export type IntakeUntrusted = Record<string, string | boolean | null>;

export interface LeadIntake {
  extracted_at: string | null;
  completeness: number | null;
  untrusted: IntakeUntrusted;
}

/** What a call's processing says about its lead (ingestion's input to the leads context). */
export interface LeadFromCall {
  callId: string;
  capturedAt: Date;
  category: string | null;
  urgency: string | null;
  language: string | null;
  phone: string | null;
  phoneE164: string | null;
  phoneExtension: string | null;
  email: string | null;
  intakeCompleteness: number | null;
  untrustedName: string | null;
  untrustedIncidentDate: string | null;
  intake: LeadIntake | null;
}

/** Every member of `intake.untrusted` (spec: Lead intake); all present and nullable. */
export const INTAKE_FIELDS = {
  strings: [
    'caller_name',
    'caller_phone',
    'caller_email',
    'referral_source',
    'relationship_to_injured',
    'incident_date',
    'incident_location',
    'incident_description',
    'fault_belief',
    'injuries',
    'treatment',
    'police_report_number',
    'insurance_carrier',
    'adverse_party_name',
    'narrative_summary',
  ],
  booleans: [
    'hospitalized',
    'surgery',
    'police_report_filed',
    'gave_recorded_statement',
    'commercial_vehicle_involved',
    'missed_work',
    'currently_represented',
    'conflict_flag',
  ],
} as const;
