import { Body, Controller, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CHECKED_BY_SERVICE, CONSOLE_SESSION, Endpoint, formBody, type EndpointSpec } from '../common/http/access.decorators.js';
import { PathParam } from '../common/http/route-input.js';
import { ConsoleActionsService } from './console-actions.service.js';
import { ConsolePagesService } from './console-pages.service.js';
import { redirectTo, sendSessionPage } from './console-replies.js';
import { CurrentConsoleSession, type ConsoleSession } from './console-session.js';
import { CONSOLE_PATH } from './console-tokens.js';
import { ConsoleViews } from './console-views.js';
import { AddEndpointFormDto, EditEndpointFormDto, type Notice } from './dto/console-forms.dto.js';

/** A button: a form POST with the session's CSRF token, answered with the page to see next. */
const button = (path: string, params: EndpointSpec['params'] = { endpoint_id: CHECKED_BY_SERVICE }): EndpointSpec => ({
  method: 'POST',
  path,
  access: CONSOLE_SESSION,
  body: formBody(16 * 1024),
  params,
  status: 200,
  browser: true,
});

const endpointPage = (id: string, done: Notice) => `${CONSOLE_PATH}/endpoints/${encodeURIComponent(id)}?done=${done}`;

/** The console's buttons; each calls the console's actions service, which calls the CLI's and the API's own. */
@Controller('console/endpoints')
export class ConsoleActionsController {
  constructor(
    private readonly actions: ConsoleActionsService,
    private readonly pages: ConsolePagesService,
    private readonly views: ConsoleViews,
  ) {}

  /** "Add endpoint": the signing secret is shown on the answer, once. */
  @Endpoint(button('', {}))
  async add(@CurrentConsoleSession() session: ConsoleSession, @Body() form: AddEndpointFormDto, @Res() reply: FastifyReply): Promise<void> {
    const added = await this.actions.add(session, { url: form.url, description: form.description, types: form.types ?? [] });
    const frame = await this.pages.frame(session);
    sendSessionPage(reply, this.views, 'secret', { ...frame, endpoint: added.endpoint, secret: added.secret, rotated: null });
  }

  /** "Save" on the edit form: the description and event types, by the rule the CLI's `endpoint update` follows. */
  @Endpoint(button(':endpoint_id/edit'))
  async save(
    @CurrentConsoleSession() session: ConsoleSession,
    @PathParam('endpoint_id') id: string,
    @Body() form: EditEndpointFormDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.actions.update(session, id, { description: form.description, types: form.types ?? [] });
    redirectTo(reply, endpointPage(id, 'updated'));
  }

  @Endpoint(button(':endpoint_id/test'))
  async sendTest(@CurrentConsoleSession() session: ConsoleSession, @PathParam('endpoint_id') id: string, @Res() reply: FastifyReply) {
    await this.actions.sendTest(session, id);
    redirectTo(reply, endpointPage(id, 'test-sent'));
  }

  @Endpoint(button(':endpoint_id/deliveries/:delivery_id/resend', { endpoint_id: CHECKED_BY_SERVICE, delivery_id: CHECKED_BY_SERVICE }))
  async resend(
    @CurrentConsoleSession() session: ConsoleSession,
    @PathParam('endpoint_id') id: string,
    @PathParam('delivery_id') deliveryId: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.actions.resend(session, id, deliveryId);
    redirectTo(reply, endpointPage(id, 'resent'));
  }

  @Endpoint(button(':endpoint_id/disable'))
  async disable(@CurrentConsoleSession() session: ConsoleSession, @PathParam('endpoint_id') id: string, @Res() reply: FastifyReply) {
    await this.actions.disable(session, id);
    redirectTo(reply, endpointPage(id, 'disabled'));
  }

  @Endpoint(button(':endpoint_id/enable'))
  async enable(@CurrentConsoleSession() session: ConsoleSession, @PathParam('endpoint_id') id: string, @Res() reply: FastifyReply) {
    await this.actions.enable(session, id);
    redirectTo(reply, endpointPage(id, 'enabled'));
  }

  /** "Rotate secret": the new secret is shown once; the old one keeps signing for the CLI's default overlap. */
  @Endpoint(button(':endpoint_id/rotate-secret'))
  async rotate(@CurrentConsoleSession() session: ConsoleSession, @PathParam('endpoint_id') id: string, @Res() reply: FastifyReply) {
    const rotated = await this.actions.rotateSecret(session, id);
    const [frame, endpoint] = await Promise.all([this.pages.frame(session), this.pages.endpoint(session, id)]);
    sendSessionPage(reply, this.views, 'secret', { ...frame, endpoint, secret: rotated.secret, rotated });
  }

  @Endpoint(button(':endpoint_id/delete'))
  async delete(@CurrentConsoleSession() session: ConsoleSession, @PathParam('endpoint_id') id: string, @Res() reply: FastifyReply) {
    await this.actions.delete(session, id);
    redirectTo(reply, `${CONSOLE_PATH}/endpoints?done=deleted`);
  }
}
