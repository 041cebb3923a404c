import type { FastifyInstance, RouteOptions } from 'fastify';
import { ROUTE_DECLARATION, type RouteDeclaration } from './route-declaration.js';

/** A route as registered: its method(s), template and declaration (undefined: it declares nothing, and is denied). */
export interface RegisteredRoute {
  method: string;
  url: string;
  declaration: RouteDeclaration | undefined;
}

const tables = new WeakMap<object, RegisteredRoute[]>();
let declaringFor: RouteDeclaration | undefined;
/** On a plugin's instance (and so on its children's): the declaration of every route it registers. */
const PLUGIN_DECLARATION = Symbol('pluginDeclaration');
type Declaring = FastifyInstance & { [PLUGIN_DECLARATION]?: RouteDeclaration };

const configOf = (route: RouteOptions) => (route.config ?? {}) as Record<string, unknown>;

/**
 * Reads each route's declaration as Fastify registers it: the body limit
 * Fastify enforces while reading (Content-Length and chunked alike) is the
 * declared one, the declaration learns its route template (the metrics
 * label), and the route joins the table the walk test reads. Installed before
 * any route is registered.
 */
export function installRouteTable(fastify: FastifyInstance): void {
  const table: RegisteredRoute[] = [];
  tables.set(fastify, table);
  fastify.addHook('onRoute', function (this: Declaring, route) {
    const given = (configOf(route)[ROUTE_DECLARATION] as RouteDeclaration | undefined) ?? declaringFor ?? this[PLUGIN_DECLARATION];
    const declaration = given && { ...given, template: route.url };
    if (declaration) {
      route.config = { ...configOf(route), [ROUTE_DECLARATION]: declaration } as RouteOptions['config'];
      if (declaration.body.kind === 'json') route.bodyLimit = declaration.body.maxBytes;
    }
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) table.push({ method, url: route.url, declaration });
  });
}

/** Every route registered on this instance, with its declaration. */
export const registeredRoutes = (fastify: FastifyInstance): readonly RegisteredRoute[] => tables.get(fastify) ?? [];

/**
 * Routes registered by a library (Swagger UI and the document) cannot carry
 * a decorator: those `register` adds get this declaration, whether it adds
 * them at once or through a plugin that Fastify loads later.
 */
export function declareRoutesOf<T>(fastify: FastifyInstance, declaration: RouteDeclaration, register: () => T): T {
  const plainRegister = fastify.register;
  const wrapped = (plugin: (child: Declaring, opts: unknown) => unknown, opts?: unknown) =>
    plainRegister.call(
      fastify,
      (async (child: Declaring, o: unknown) => {
        child[PLUGIN_DECLARATION] = declaration;
        return plugin(child, o);
      }) as never,
      opts as never,
    );
  declaringFor = declaration;
  fastify.register = wrapped as never;
  try {
    return register();
  } finally {
    declaringFor = undefined;
    fastify.register = plainRegister;
  }
}
