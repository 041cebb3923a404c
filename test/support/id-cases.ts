import { randomUUID } from 'node:crypto';
import { newCallId, newEventId, newLeadId, readEventId } from '../../src/common/ids';
import type { HttpResult, TestApp } from './test-app';

/** What an id names: a firm's live data, or (`testCall`) a call only a test key reaches. */
export type IdKind = 'call' | 'lead' | 'external' | 'event' | 'endpoint' | 'delivery' | 'testCall';
/** The ids a firm's data (of one mode) gives. */
export type DataIdKind = Exclude<IdKind, 'testCall'>;

/** One id-taking operation, path parameter or filter: how to send it with a given id and key. */
export interface IdCase<K extends IdKind = IdKind> {
  name: string;
  /** The operation in the OpenAPI document ("get /v1/calls/{call_id}"), for the coverage check. */
  operation: string;
  /** The path parameter or query parameter it exercises. */
  param: string;
  kind: K;
  /** Takes only a test key (the test helpers): sent with the firm's test key, on its test-mode call. */
  testMode?: boolean;
  send(t: TestApp, id: string, key: string): Promise<HttpResult>;
}

/**
 * A well-formed id of each kind that names nothing; `like` is the id it stands beside. An event id carries the time
 * and position its event was written at, which an after_lost answer is about (its restart_after): the missing one is
 * `like` with another random tail, so the two differ only in whether the event exists, for another firm or mode.
 */
export const MISSING_ID: Record<IdKind, (like?: string) => string> = {
  call: () => newCallId(),
  testCall: () => newCallId(),
  lead: () => newLeadId(),
  external: () => `ext-${randomUUID()}`,
  event: (like) =>
    like && readEventId(like)?.position ? `${like.slice(0, -6)}${like.endsWith('zzzzzz') ? 'yyyyyy' : 'zzzzzz'}` : newEventId(),
  endpoint: () => randomUUID(),
  delivery: () => randomUUID(),
};

export const pathCase = <K extends IdKind>(method: string, template: string, param: string, kind: K, body?: unknown): IdCase<K> => ({
  name: `${method} ${template}`,
  operation: `${method.toLowerCase()} ${template}`,
  param,
  kind,
  send: (t, id, key) => t.request(method, template.replace(`{${param}}`, encodeURIComponent(id)), { key, body }),
});

export const filterCase = <K extends IdKind>(path: string, param: string, kind: K): IdCase<K> => ({
  name: `GET ${path}?${param}=`,
  operation: `get ${path}`,
  param,
  kind,
  send: (t, id, key) => t.get(path, { key, query: { [param]: id } }),
});

/**
 * Every operation and filter that takes an id of a firm's data: the firm matrix
 * (isolation-matrix) and the mode matrix (test-mode) both send each one another
 * firm's or mode's id and expect the answer an unknown id gets.
 */
export const DATA_ID_CASES: IdCase<DataIdKind>[] = [
  pathCase('GET', '/v1/calls/{call_id}', 'call_id', 'call'),
  pathCase('GET', '/v1/calls/{call_id}/transcript', 'call_id', 'call'),
  pathCase('GET', '/v1/calls/{call_id}/recording', 'call_id', 'call'),
  pathCase('POST', '/v1/calls/{call_id}/recording-link', 'call_id', 'call'),
  pathCase('GET', '/v1/leads/{lead_id}', 'lead_id', 'lead'),
  pathCase('PATCH', '/v1/leads/{lead_id}', 'lead_id', 'lead', { status: 'contacted' }),
  pathCase('GET', '/v1/events/{event_id}', 'event_id', 'event'),
  pathCase('POST', '/v1/webhook-endpoints/{endpoint_id}/test', 'endpoint_id', 'endpoint'),
  pathCase('POST', '/v1/webhook-deliveries/{delivery_id}/redeliver', 'delivery_id', 'delivery'),
  filterCase('/v1/calls', 'ids', 'call'),
  filterCase('/v1/leads', 'call_id', 'call'),
  filterCase('/v1/leads', 'external_id', 'external'),
  filterCase('/v1/events', 'after', 'event'),
  filterCase('/v1/webhook-deliveries', 'event_id', 'event'),
  filterCase('/v1/webhook-deliveries', 'endpoint_id', 'endpoint'),
];

/** What a client can observe, with the id itself and per-request values (request id, as_of) taken out. */
export function observable(r: HttpResult, id: string): unknown {
  const text = r.text.split(id).join('<id>').split(encodeURIComponent(id)).join('<id>');
  let body: unknown = text;
  if ((r.headers.get('content-type') ?? '').includes('json') && text) {
    body = JSON.parse(text, (k, v: unknown) => (['request_id', 'as_of'].includes(k) ? '<varies>' : v));
  }
  return { status: r.status, type: r.headers.get('content-type'), length: r.headers.get('content-length'), body };
}
