import type { FastifyReply } from 'fastify';
import type { ConsoleViews } from './console-views.js';

/** A rendered page. */
export function sendPage(reply: FastifyReply, html: string, status = 200): void {
  reply.code(status).type('text/html; charset=utf-8').send(html);
}

/** A page of a signed-in session: its forms carry a fresh CSRF token made from the session's secret (@fastify/csrf-protection). */
export function sendSessionPage(reply: FastifyReply, views: ConsoleViews, view: string, data: object): void {
  sendPage(reply, views.render(view, { ...data, csrfToken: reply.generateCsrf() }));
}

/** After an action: see the result at `location` (303, so the browser follows with a GET). */
export function redirectTo(reply: FastifyReply, location: string): void {
  reply.code(303).header('location', location).send();
}
