import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** A signed-in console: one firm in one mode, as its owner (or, read-only, as someone the owner lets look). */
export interface ConsoleSession {
  /** console_sessions.id: the audit log's actor id, and the public handle `console sessions` lists. */
  id: string;
  orgId: string;
  livemode: boolean;
  expiresAt: Date;
  /** Sees everything, changes nothing (`console link --read-only`). */
  readOnly: boolean;
  /** The secret its forms' CSRF tokens are made from (console-tokens.ts, csrfSecretOf); never sent. */
  csrfSecret: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The console session the access stage found (routes declared CONSOLE_SESSION; null elsewhere). Named `session`
     * because that is where @fastify/csrf-protection reads a server-side session's CSRF secret (`csrfSecret`).
     */
    session: ConsoleSession | null;
  }
}

/** Controller parameter: the request's console session (only on routes declared CONSOLE_SESSION). */
export const CurrentConsoleSession = createParamDecorator((_: unknown, ctx: ExecutionContext): ConsoleSession => {
  const session = ctx.switchToHttp().getRequest<FastifyRequest>().session;
  if (!session) throw new Error('CurrentConsoleSession used on a route that declares no console access');
  return session;
});
