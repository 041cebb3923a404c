import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

/**
 * Controller parameter: an AbortSignal that aborts when the client goes away
 * before its answer is written (the response closes unfinished), so a long
 * wait stops at once instead of running to its deadline.
 */
export const ClientGone = createParamDecorator((_: unknown, ctx: ExecutionContext): AbortSignal => {
  const res = ctx.switchToHttp().getResponse<FastifyReply>().raw;
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
});
