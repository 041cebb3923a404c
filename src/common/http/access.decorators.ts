import { applyDecorators, Get, SetMetadata, type Type } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeEndpoint, ApiExtension, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiProblems } from './openapi.decorators.js';
import type { Scope } from './scopes.js';

export const REQUIRED_SCOPE = 'access:required_scope';
export const PUBLIC_ROUTE = 'access:public';
export const INTERNAL_ROUTE = 'access:internal';
export const API_KEY_SECURITY = 'api_key';

/** How an operation reads in the OpenAPI document: a stable operationId (listCalls), a one-line summary and a description. */
export interface OperationDoc {
  id: string;
  summary: string;
  description: string;
}

/**
 * Every route declares exactly one of these. The guard denies any route that
 * declares none, and a test walks every route to prove each has one.
 */
export function RequireScope(scope: Scope, op: OperationDoc) {
  return applyDecorators(
    SetMetadata(REQUIRED_SCOPE, scope),
    ApiOperation({ operationId: op.id, summary: op.summary, description: `${op.description}\n\nRequires scope \`${scope}\`.` }),
    ApiBearerAuth(API_KEY_SECURITY),
    ApiExtension('x-required-scope', scope),
    ApiProblems(401, 403, 429, 503),
  );
}

/** An operation's document entry plus the description of its success answer. */
export type KeyedReadDoc = OperationDoc & { ok: string };

/** A keyed GET of `path` answering 200 with `ok`: its route, scope and security, its success schema and the problems it can answer, in one. */
export function KeyedRead(path: string, scope: Scope, op: KeyedReadDoc, type: Type<unknown>, ...problems: number[]) {
  return applyDecorators(Get(path), RequireScope(scope, op), ApiOkResponse({ type, description: op.ok }), ApiProblems(...problems));
}

/** No API key (health, the OpenAPI document, recording links whose token is the credential). */
export function PublicRoute(op?: OperationDoc) {
  const doc = op ? [ApiOperation({ operationId: op.id, summary: op.summary, description: op.description, security: [] })] : [];
  return applyDecorators(SetMetadata(PUBLIC_ROUTE, true), ...doc);
}

/** The receptionist pipeline's port: INTERNAL_API_TOKEN, never in the public document. */
export function InternalRoute() {
  return applyDecorators(SetMetadata(INTERNAL_ROUTE, true), ApiExcludeEndpoint());
}
