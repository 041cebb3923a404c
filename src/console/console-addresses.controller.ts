import { Controller, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CHECKED_BY_SERVICE, CONSOLE_SESSION, Endpoint, type EndpointSpec } from '../common/http/access.decorators.js';
import { PathParam } from '../common/http/route-input.js';
import { endpointHref } from './console-pages.service.js';
import { redirectTo } from './console-replies.js';
import { CONSOLE_PATH } from './console-tokens.js';

/** A GET on a button's address (a reopened tab, a bookmark, the back button after a POST): nothing to do there. */
const address = (path: string, params: EndpointSpec['params'] = { endpoint_id: CHECKED_BY_SERVICE }): EndpointSpec => ({
  method: 'GET',
  path,
  access: CONSOLE_SESSION,
  params,
  query: 'any',
  browser: true,
});

/**
 * The addresses the console's buttons post to, opened with a GET: each lands back on the page the button is on (303)
 * instead of a 405 problem document. Nothing is changed; the page itself answers 404 for an endpoint not the session's.
 */
@Controller('console')
export class ConsoleAddressesController {
  @Endpoint(address('endpoints/:endpoint_id/test'))
  test(@PathParam('endpoint_id') id: string, @Res() reply: FastifyReply): void {
    redirectTo(reply, endpointHref(id));
  }

  @Endpoint(address('endpoints/:endpoint_id/disable'))
  disable(@PathParam('endpoint_id') id: string, @Res() reply: FastifyReply): void {
    redirectTo(reply, endpointHref(id));
  }

  @Endpoint(address('endpoints/:endpoint_id/enable'))
  enable(@PathParam('endpoint_id') id: string, @Res() reply: FastifyReply): void {
    redirectTo(reply, endpointHref(id));
  }

  @Endpoint(address('endpoints/:endpoint_id/rotate-secret'))
  rotateSecret(@PathParam('endpoint_id') id: string, @Res() reply: FastifyReply): void {
    redirectTo(reply, endpointHref(id));
  }

  @Endpoint(address('endpoints/:endpoint_id/delete'))
  delete(@PathParam('endpoint_id') id: string, @Res() reply: FastifyReply): void {
    redirectTo(reply, endpointHref(id));
  }

  @Endpoint(
    address('endpoints/:endpoint_id/deliveries/:delivery_id/resend', { endpoint_id: CHECKED_BY_SERVICE, delivery_id: CHECKED_BY_SERVICE }),
  )
  resend(@PathParam('endpoint_id') id: string, @Res() reply: FastifyReply): void {
    redirectTo(reply, endpointHref(id));
  }

  @Endpoint(address('sign-out', {}))
  signOut(@Res() reply: FastifyReply): void {
    redirectTo(reply, `${CONSOLE_PATH}/endpoints`);
  }
}
