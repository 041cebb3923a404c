import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** A signed-in console: one firm in one mode, as its owner. */
export interface ConsoleSession {
  /** console_sessions.id: the audit log's actor id. */
  id: string;
  orgId: string;
  livemode: boolean;
  expiresAt: Date;
  /** The token every form of this session carries. */
  csrfToken: string;
}

/** Where the access stage leaves the request's session. */
export const CONSOLE_SESSION_OF = Symbol('consoleSession');

export const sessionOf = (req: object): ConsoleSession | undefined =>
  (req as Record<symbol, ConsoleSession | undefined>)[CONSOLE_SESSION_OF];

/** Controller parameter: the request's console session (only on routes declared CONSOLE_SESSION). */
export const CurrentConsoleSession = createParamDecorator((_: unknown, ctx: ExecutionContext): ConsoleSession => {
  const session = sessionOf(ctx.switchToHttp().getRequest<object>());
  if (!session) throw new Error('CurrentConsoleSession used on a route that declares no console access');
  return session;
});
