import type { INestApplicationContext } from '@nestjs/common';
import { ConsoleSignInService } from '../../src/console';
import { registerLiveToken } from './run-log';

/** A console session as a test holds it: its cookie and CSRF token, and requests made with them. */
export interface ConsoleBrowser {
  cookie: string;
  csrf: string;
  /** The session id (the cookie's value): a credential, registered for the end-of-run log scan. */
  secret: string;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** A form post from the console's own origin with the session's token, unless `headers`/`form` say otherwise ('' leaves a header out). */
  post(path: string, form?: Record<string, string | string[]>, headers?: Record<string, string>): Promise<Response>;
}

/** The link's token (the last path segment), registered as a live credential for the end-of-run log scan. */
export function linkToken(url: string): string {
  const token = new URL(url).pathname.split('/').pop()!;
  registerLiveToken(token);
  return token;
}

/** A one-time link minted as the CLI does it (the service the `console link` command calls); `readOnly` as --read-only. */
export async function mintLink(
  app: INestApplicationContext,
  org: string,
  livemode = true,
  readOnly = false,
): Promise<{ url: string; token: string }> {
  const link = await app.get(ConsoleSignInService).createLink(org, livemode, readOnly);
  return { url: link.url, token: linkToken(link.url) };
}

export const formBody = (form: Record<string, string | string[]>): string => {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) for (const v of [value].flat()) params.append(name, v);
  return params.toString();
};

/** The CSRF token a console page's forms carry. */
export const csrfOf = (html: string): string => /name="csrf_token" value="([^"]+)"/.exec(html)![1];

/** Opens the link on `baseUrl` (as a browser would, not following the redirect) and returns the signed-in session. */
export async function openConsole(baseUrl: string, token: string): Promise<ConsoleBrowser> {
  const opened = await fetch(`${baseUrl}/console/sign-in/${token}`, { redirect: 'manual', headers: { accept: 'text/html' } });
  if (opened.status !== 303) throw new Error(`the link answered ${opened.status}: ${await opened.text()}`);
  const secret = /console_session=([^;]+)/.exec(opened.headers.get('set-cookie') ?? '')![1];
  registerLiveToken(secret);
  const cookie = `console_session=${secret}`;
  const origin = new URL(baseUrl).origin;
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${baseUrl}${path}`, { redirect: 'manual', headers: { accept: 'text/html', cookie, ...headers } });
  const csrf = csrfOf(await (await get('/console/endpoints')).text());
  return {
    cookie,
    csrf,
    secret,
    get,
    post: (path, form = {}, headers = {}) =>
      fetch(`${baseUrl}${path}`, {
        method: 'POST',
        redirect: 'manual',
        // A header given as '' is left out (a request with no Origin, as some browsers send).
        headers: Object.fromEntries(
          Object.entries({ accept: 'text/html', cookie, origin, 'content-type': 'application/x-www-form-urlencoded', ...headers }).filter(
            ([, v]) => v !== '',
          ),
        ),
        body: formBody({ csrf_token: csrf, ...form }),
      }),
  };
}
