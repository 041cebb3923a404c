/** What a call holds, as ingestion hands it to the calls context and as it is stored. */

export interface CallSummary {
  reason: string | null;
  message: string | null;
}

export interface CallAbout {
  name: string;
  relation: string;
}

export interface CallReference {
  kind: string;
  value: string;
  key: string;
  for_name: string | null;
}

export interface CallDetails {
  about: CallAbout[];
  caller_organization: string | null;
  asked_for: string | null;
  message_for: string | null;
  best_time: string | null;
  references: CallReference[];
  generated_at: string;
}

export interface CallUntrusted {
  summary: CallSummary;
  caller_name: string | null;
  details: CallDetails | null;
}

export interface ConversationSummary {
  covers: string[];
  conversation_status: string | null;
  staff_name: string | null;
  summary: string | null;
  outcome: string;
  key_points: string[];
  confirmed_details: { label: string; value: string; said_by: string }[];
  next_steps: string[];
  generated_at: string;
}

export interface CallHandling {
  trace_version: number;
  config_version: number | null;
  transfer_tool_fired: boolean;
  fires: number;
  business_hours: boolean | null;
  category: string | null;
  rule: string | null;
  eligible: boolean | null;
  ineligible_reason: string | null;
  requested_person: string | null;
  requested_person_name: string | null;
  gate: string | null;
  chain: string[] | null;
  rung: { name: string; outcome: string }[] | null;
  connected: boolean | null;
  transfer_reason: string | null;
}

/** A validated, normalised call from the pipeline (ingestion's output, the calls context's input). */
export interface IngestedCall {
  callId: string;
  startedAt: Date;
  durationS: number | null;
  answered: boolean | null;
  category: string | null;
  urgency: string | null;
  language: string | null;
  outcome: string | null;
  fromE164: string | null;
  callbackNumber: string | null;
  callbackExtension: string | null;
  processingComplete: boolean;
  configVersion: number | null;
  untrusted: CallUntrusted;
  conversationSummary: ConversationSummary | null;
  handling: CallHandling | null;
}

/** The stored state ingestion needs before it rewrites a call (read under the call's lock). */
export interface CallWriteState {
  processingComplete: boolean;
  completedEventAt: Date | null;
  leadId: string | null;
  hasRecording: boolean;
  /** The mode the call was first written in; a call never changes mode. */
  livemode: boolean;
}

/** Whether the firm has the call, and whether it has a recording. */
export interface CallRef {
  orgId: string;
  callId: string;
  hasRecording: boolean;
}
