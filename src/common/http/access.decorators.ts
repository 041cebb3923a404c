import { applyDecorators, HttpCode, RequestMethod, RequestMapping, UseInterceptors, type Type } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBearerAuth, ApiExcludeEndpoint, ApiExtension, ApiHeader, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import { IdempotencyStage } from './idempotency-stage.js';
import { ApiIdempotencyKey, ApiNotFound, ApiProblems, ApiTestModeOnly } from './openapi.decorators.js';
import {
  ROUTE_DECLARATION,
  type PathParamForm,
  type PathParamRule,
  type RouteAccess,
  type RouteBody,
  type RouteDeclaration,
} from './route-declaration.js';
import type { Scope } from './scopes.js';

export const API_KEY_SECURITY = 'api_key';

/** How an operation reads in the OpenAPI document: a stable operationId (listCalls), a one-line summary and a description. */
export interface OperationDoc {
  id: string;
  summary: string;
  description: string;
}

/** The success answer in the document. */
export interface SuccessDoc {
  description: string;
  type?: Type<unknown>;
  headers?: Record<string, unknown>;
}

type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One route, declared once: every stage of a request reads this (see route-declaration.ts). */
export interface EndpointSpec {
  method: Method;
  path?: string;
  access: RouteAccess;
  /** Default: no body. */
  body?: RouteBody;
  params?: Record<string, PathParamRule>;
  /** Default 'none': any query parameter is refused, naming it. */
  query?: RouteDeclaration['query'];
  credentialQuery?: string[];
  quietLog?: boolean;
  /** A single-resource read: a strong ETag on its 200, 304 for a matching If-None-Match (entity-tags.ts). */
  etag?: boolean;
  /** The route only answers 405 (route-declaration.ts). */
  refusesMethod?: true;
  /** A page for browsers (route-declaration.ts); never in the public document. */
  browser?: boolean;
  /** The success status when not Nest's default (200; 201 for POST). */
  status?: number;
  /** The document entry; without it the route is not in the public document. */
  op?: OperationDoc;
  ok?: SuccessDoc;
  problems?: number[];
  /** With 404 among `problems`: the detail the service answers for this operation's resource, its example's. */
  notFound?: string;
  /** Further document entries that no field above expresses (audio answers, conflict bodies). */
  doc?: MethodDecorator[];
}

export const keyed = (scope: Scope): RouteAccess => ({ kind: 'key', scope });
/** A keyed read whose service re-checks the key in the statement that reads the data (route-declaration.ts). */
export const keyedRead = (scope: Scope): RouteAccess => ({ kind: 'key', scope, recheckedInRead: true });
/** Any valid test key (svc_test_), no scope needed; a live key answers 403 test_mode_only. */
export const TEST_KEY: RouteAccess = { kind: 'key', scope: null, testOnly: true };
export const PUBLIC: RouteAccess = { kind: 'public' };
export const INTERNAL: RouteAccess = { kind: 'internal' };
export const linkToken = (param: string): RouteAccess => ({ kind: 'link', param });
/** A signed-in console session (src/console). */
export const CONSOLE_SESSION: RouteAccess = { kind: 'console' };

export const NO_BODY: RouteBody = { kind: 'none' };
export const jsonBody = (maxBytes: number): RouteBody => ({ kind: 'json', maxBytes });
export const streamBody = (contentType: string): RouteBody => ({ kind: 'stream', contentType });
export const formBody = (maxBytes: number): RouteBody => ({ kind: 'form', maxBytes });

/** The OpenAPI document and Swagger UI's files: no key, no body, any query. */
export const DOCUMENT_FILES: RouteDeclaration = { access: PUBLIC, body: NO_BODY, params: {}, query: 'any', credentialQuery: [] };

/** A path id checked like every plain id: one that cannot exist answers 404 naming `what`. */
export const pathId = (what: string, doc?: PathParamRule['doc']): PathParamRule => ({ form: 'plain-id', notFoundAs: what, doc });
/** A uuid path id (a firm on the internal routes): a value that is not a uuid answers 404 naming `what`. */
export const uuidPathId = (what: string): PathParamRule => ({ form: 'uuid', notFoundAs: what });
/**
 * A path parameter whose value of another form answers 400 invalid_request naming it (uuids and evt_ ids keep their
 * documented 400), or, when it is a credential, 404 like an unknown one. The form: `form`, else a uuid where the
 * document says so, else any text without control characters.
 */
export const pathParam = (
  doc: PathParamRule['doc'],
  credential = false,
  form: PathParamForm = doc?.format === 'uuid' ? 'uuid' : 'text',
): PathParamRule => ({ form, doc, credential, ...(credential ? { notFoundAs: 'The link' } : {}) });
/** A credential in the path (a recording link's token): never logged; one of another form answers 404 naming `what`. */
export const tokenParam = (what: string, doc: PathParamRule['doc']): PathParamRule => ({
  form: 'token',
  notFoundAs: what,
  credential: true,
  doc,
});
/** A path parameter its service checks further: any text without control characters, else 404 like an unknown resource. */
export const CHECKED_BY_SERVICE: PathParamRule = { form: 'text', notFoundAs: 'The resource' };

/** The operation's security, scope extension and the problems its access rule can answer. */
function accessDoc(access: RouteAccess, op: OperationDoc | undefined): MethodDecorator[] {
  if (!op || access.kind === 'internal' || access.kind === 'console') return [ApiExcludeEndpoint()];
  if (access.kind !== 'key') return [ApiOperation({ operationId: op.id, summary: op.summary, description: op.description, security: [] })];
  if (access.scope === null) {
    return [
      ApiOperation({
        operationId: op.id,
        summary: op.summary,
        description: `${op.description}\n\nRequires a test key (\`svc_test_...\`); no scope.`,
      }),
      ApiBearerAuth(API_KEY_SECURITY),
      ApiExtension('x-test-mode-only', true),
      ApiProblems(401, 429, 503),
      ApiTestModeOnly(),
    ];
  }
  return [
    ApiOperation({ operationId: op.id, summary: op.summary, description: `${op.description}\n\nRequires scope \`${access.scope}\`.` }),
    ApiBearerAuth(API_KEY_SECURITY),
    ApiExtension('x-required-scope', access.scope),
    ApiProblems(401, 403, 429, 503),
  ];
}

const paramDocs = (params: Record<string, PathParamRule>): MethodDecorator[] =>
  Object.entries(params).flatMap(([name, rule]) => (rule.doc ? [ApiParam({ name, ...rule.doc })] : []));

function successDoc(spec: EndpointSpec): MethodDecorator[] {
  if (!spec.ok) return [];
  const status = spec.status ?? (spec.method === 'POST' ? 201 : 200);
  return [ApiResponse({ status, ...spec.ok } as Parameters<typeof ApiResponse>[0]), ...(spec.etag ? ETAG_DOC : [])];
}

/** The conditional read of a single resource: If-None-Match in, 304 out (its ETag header is added by openapi-headers.ts). */
const ETAG_DOC: MethodDecorator[] = [
  ApiHeader({
    name: 'If-None-Match',
    required: false,
    description:
      'The `ETag` of the copy the client holds (one tag, a comma-separated list, or `*`). When it still matches, the answer is 304 with no body; the read is still counted against the rate limit and audited.',
    schema: { type: 'string' },
    example: '"q1b3uVZ8t0dJ0Zk8oYf0cM4b2l9wGQyVQd0nE7mH3aA"',
  }),
  ApiResponse({ status: 304, description: 'Not modified: the `If-None-Match` tag still matches. No body; the `ETag` is repeated.' }),
];

/** The operation's error answers; a 404 shows the detail its own resource gets, so one must be given. */
function problemDocs(spec: EndpointSpec): MethodDecorator[] {
  const problems = spec.problems ?? [];
  if (!problems.includes(404)) return [ApiProblems(...problems)];
  if (!spec.notFound) throw new Error(`${spec.op?.id}: a documented 404 needs notFound, the detail its resource gets`);
  return [ApiProblems(...problems.filter((status) => status !== 404)), ApiNotFound(spec.notFound)];
}

/**
 * The one way to declare a route: its method and path, access, body, path
 * parameters, query, credentials and document entry. The declaration goes
 * into Fastify's route config, where the onRequest stages read it before any
 * body byte, and into the document through the same call.
 */
export function Endpoint(spec: EndpointSpec): MethodDecorator {
  // Every keyed POST takes an Idempotency-Key (src/idempotency): the stage and the document read this one flag.
  const idempotent = spec.method === 'POST' && spec.access.kind === 'key';
  const declaration: RouteDeclaration = {
    access: spec.access,
    body: spec.body ?? NO_BODY,
    params: spec.params ?? {},
    query: spec.query ?? 'none',
    credentialQuery: spec.credentialQuery ?? [],
    quietLog: spec.quietLog,
    etag: spec.etag,
    refusesMethod: spec.refusesMethod,
    ...(spec.browser ? { browser: true } : {}),
    ...(idempotent ? { idempotent: true } : {}),
  };
  return applyDecorators(
    RequestMapping({ path: spec.path ?? '', method: RequestMethod[spec.method] }),
    RouteConfig({ [ROUTE_DECLARATION]: declaration }),
    // On these routes alone: every other request runs without an interceptor.
    ...(declaration.idempotent ? [UseInterceptors(IdempotencyStage)] : []),
    ...(spec.status ? [HttpCode(spec.status)] : []),
    ...accessDoc(spec.access, spec.op),
    ...(spec.op ? [...paramDocs(declaration.params), ...successDoc(spec), ...problemDocs(spec)] : []),
    // Before the operation's own entries: an operation with a 409 of its own states both of its meanings there.
    ...(spec.op && declaration.idempotent ? [ApiIdempotencyKey()] : []),
    ...(spec.doc ?? []),
  );
}
