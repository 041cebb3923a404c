import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Gives back the request's place among its key's requests under way at once (auth's concurrent-requests.ts sets
     * it on keyed routes); a request that goes on to wait without working (GET /v1/events?wait) calls it so that its
     * wait does not hold back the key's other requests. Calling it again, or after the answer, does nothing.
     */
    stepAside?: () => void;
  }
}

/** Controller parameter: the request's `stepAside` (a no-op where no limiter gave it a place). */
export const StepAside = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): (() => void) => ctx.switchToHttp().getRequest<FastifyRequest>().stepAside ?? (() => {}),
);
