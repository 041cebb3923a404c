import type { FastifyInstance, RouteOptions } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { ROUTE_DECLARATION, type RouteDeclaration } from './route-declaration.js';

/** A route as registered: its method(s), template and declaration (undefined: it declares nothing, and is denied). */
export interface RegisteredRoute {
  method: string;
  url: string;
  declaration: RouteDeclaration | undefined;
}

const tables = new WeakMap<object, RegisteredRoute[]>();
/** Per instance: the paths its routes answer, matched exactly as Fastify's router matches them (the same library and options). */
const pathRouters = new WeakMap<object, FindMyWay.Instance<FindMyWay.HTTPVersion.V1>>();
/** The order methods are listed in an Allow header. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
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
  const { routerOptions, caseSensitive } = fastify.initialConfig;
  const paths = FindMyWay({
    caseSensitive,
    ignoreTrailingSlash: routerOptions?.ignoreTrailingSlash,
    ignoreDuplicateSlashes: routerOptions?.ignoreDuplicateSlashes,
    maxParamLength: routerOptions?.maxParamLength,
  });
  pathRouters.set(fastify, paths);
  fastify.addHook('onRoute', function (this: Declaring, route) {
    const given = (configOf(route)[ROUTE_DECLARATION] as RouteDeclaration | undefined) ?? declaringFor ?? this[PLUGIN_DECLARATION];
    const declaration = given && { ...given, template: route.url };
    if (declaration) {
      route.config = { ...configOf(route), [ROUTE_DECLARATION]: declaration } as RouteOptions['config'];
      if (declaration.body.kind === 'json') route.bodyLimit = declaration.body.maxBytes;
    }
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      table.push({ method, url: route.url, declaration });
      // A route that only refuses its method (HEAD where the spec says 405) is not one the path allows.
      if (!declaration?.refusesMethod) paths.on(method as HTTPMethod, route.url, () => undefined);
    }
  });
}

/**
 * The methods the path of this request target answers, in Allow order; none
 * when no route has the path (a wrong method on a path that exists is 405,
 * an unknown path 404).
 */
export function allowedMethods(fastify: FastifyInstance, target: string): string[] {
  const paths = pathRouters.get(fastify);
  if (!paths) return [];
  return METHOD_ORDER.filter((method) => paths.find(method as HTTPMethod, target) !== null);
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
