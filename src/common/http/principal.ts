import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Scope } from './scopes.js';

/** Who is calling: set on the request by the API-key guard. */
export interface ApiPrincipal {
  orgId: string;
  keyId: string;
  keyName: string;
  prefix: string;
  last4: string;
  scopes: Scope[];
  expiresAt: Date | null;
  createdAt: Date;
  /** The key's mode: true for a live key (svc_live_), false for a test key (svc_test_), which sees only test data. */
  livemode: boolean;
}

/**
 * What a key's list cursors are MACed to: the firm, and for a test key its mode too, so a cursor of one mode is
 * refused in the other (a live key's cursors are bound exactly as before test mode existed).
 */
export const cursorScopeOf = (p: Pick<ApiPrincipal, 'orgId' | 'livemode'>): string => (p.livemode ? p.orgId : `${p.orgId}/test`);

export const PRINCIPAL = Symbol('principal');

/** Controller parameter: the authenticated key. Only on routes whose declaration asks for a key. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): ApiPrincipal => {
  const req = ctx.switchToHttp().getRequest();
  const p = req[PRINCIPAL];
  if (!p) throw new Error('CurrentPrincipal used on a route that declares no key access');
  return p;
});
