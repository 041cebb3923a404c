import type { Type } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Scope } from './scopes.js';

/** Who may call a route. */
export type RouteAccess =
  | { kind: 'public' }
  /**
   * An API key: with a `scope`, one holding it (else 403 insufficient_scope); `testOnly`: a test key
   * (svc_test_), a live one answering 403 test_mode_only (the test helpers, which need no scope).
   * `recheckedInRead`: the service re-checks the key (not revoked, not expired, same firm) inside the
   * statement that reads the data (src/auth/key-standing.ts), so the access stage may use a principal
   * cached by this process instead of looking the key up.
   */
  | { kind: 'key'; scope: Scope | null; testOnly?: boolean; recheckedInRead?: true }
  | { kind: 'internal' }
  /** No key: the named path parameter is the credential (the service checks it). */
  | { kind: 'link'; param: string }
  /**
   * The endpoint owner's console (src/console): a console session's cookie, checked by the session gate given to
   * the access stage; a request that is not a GET must also come from the console's own origin and carry the
   * session's CSRF token. A read-only session's request that is not a GET is refused unless `allowsReadOnly` (Sign out).
   */
  | { kind: 'console'; allowsReadOnly?: true };

/** What body a route reads. */
export type RouteBody =
  | { kind: 'none' }
  | { kind: 'json'; maxBytes: number }
  /** The untouched request stream, in this one content type (the recording upload). */
  | { kind: 'stream'; contentType: string }
  /** An HTML form (application/x-www-form-urlencoded) of at most `maxBytes`: the console's buttons. */
  | { kind: 'form'; maxBytes: number };

/**
 * What a path parameter's value must be (route-input.ts). Every parameter states one, so no value of another form
 * reaches a handler, and so none reaches a statement (a NUL in text is an error in PostgreSQL).
 */
export type PathParamForm =
  /** 1 to 128 letters, digits and `_ . : -`, a letter or digit first (isPlainId): call and lead ids. */
  | 'plain-id'
  | 'uuid'
  /** `evt_` and its id (isEventId). */
  | 'event-id'
  /** base64url, 1 to 256 characters: a credential the service only hashes (a recording link). */
  | 'token'
  /** Any text without a control character (NUL among them), an unpaired surrogate or U+FFFD (a byte that was not UTF-8). */
  | 'text';

/** How a path parameter is checked before the handler sees it. */
export interface PathParamRule {
  form: PathParamForm;
  /** Set: a value not of the form answers 404 naming this thing, like an unknown id; unset: 400 invalid_request naming the parameter. */
  notFoundAs?: string;
  /** Its value is a credential: never logged. */
  credential?: boolean;
  /** How the public document shows it (internal routes are not in the document). */
  doc?: { description: string; example: string; format?: string };
}

/**
 * Everything each stage of a request needs to know about its route, declared
 * once on the handler (`Endpoint`, access.decorators.ts) and read by the
 * stages from Fastify's route config (`request.routeOptions.config`), which
 * exists before a byte of the body is read.
 */
export interface RouteDeclaration {
  access: RouteAccess;
  body: RouteBody;
  params: Record<string, PathParamRule>;
  /** A query DTO (bound with @Query() by the handler); 'none' refuses any parameter; 'any' tolerates them (cache busters). */
  query: Type<unknown> | 'none' | 'any';
  /** Query parameter names whose values are credentials. */
  credentialQuery: string[];
  /** No access line (probes that poll often and say nothing new). */
  quietLog?: boolean;
  /** A single resource: its 200 carries a strong ETag and a matching If-None-Match answers 304 (entity-tags.ts). */
  etag?: boolean;
  /** The route only answers 405 (HEAD where the spec refuses it): the `Allow` header of its path leaves its method out. */
  refusesMethod?: true;
  /** A page for browsers (the console): its answers carry the console's security headers, its refusals are pages. */
  browser?: boolean;
  /**
   * Takes an `Idempotency-Key` (every keyed POST): the first request with a key runs and its answer is stored for the
   * API key; the same request again answers that (src/idempotency).
   */
  idempotent?: true;
  /** The route template Fastify registered (set once the route is registered): the metrics label. */
  template?: string;
}

/** The key under which the declaration sits in the Fastify route config. */
export const ROUTE_DECLARATION = 'routeDeclaration';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's declaration (`Endpoint`, access.decorators.ts), under ROUTE_DECLARATION. */
    routeDeclaration?: RouteDeclaration;
  }
}

/** The declaration of the route this request matched; undefined when it matched none or its route declares nothing. */
export function declarationOf(req: FastifyRequest): RouteDeclaration | undefined {
  return req.routeOptions.config?.routeDeclaration;
}

/** The request matched a route (which may still lack a declaration). */
export const matchedRoute = (req: FastifyRequest): boolean => req.routeOptions.url !== undefined;

/** The names of the declared credential path parameters. */
export const credentialParams = (d: RouteDeclaration): string[] =>
  Object.entries(d.params)
    .filter(([, rule]) => rule.credential)
    .map(([name]) => name);
