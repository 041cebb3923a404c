import type { FastifyReply } from 'fastify';

/** A rendered page. */
export function sendPage(reply: FastifyReply, html: string, status = 200): void {
  reply.code(status).type('text/html; charset=utf-8').send(html);
}

/** After an action: see the result at `location` (303, so the browser follows with a GET). */
export function redirectTo(reply: FastifyReply, location: string): void {
  reply.code(303).header('location', location).send();
}
