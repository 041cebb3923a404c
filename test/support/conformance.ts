import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { closedSchemas } from './closed-schemas';

/**
 * Every response the e2e helper receives is checked against the OpenAPI
 * document the server serves: the status is documented for the operation,
 * the content type is the documented one, the body matches the schema and
 * the required documented headers are present. Object schemas are read
 * closed (closed-schemas.ts): a member the document does not list fails the
 * check, while the served document leaves clients free to ignore new ones.
 * A mismatch throws, failing
 * the test that made the request. Exercised (operationId, status) pairs are
 * appended to the run folder for the coverage report of global-teardown.
 *
 * Every request to the service goes through this check: requestAt
 * (test/support/http.ts, behind TestApp.request and SpreadClient), or
 * checkExchange/checkResponse for a request a test makes itself (getBytes,
 * the typed client, the browser, node:http streams, raw sockets of the fuzz).
 * Left unchecked on purpose: /internal routes and paths outside the document;
 * test/hostile-requests/hostile-input.cases.ts, which writes malformed HTTP on raw sockets
 * (often no parseable answer); test/recordings-api/recordings-http.cases.ts, a bare
 * Fastify with stub routes; the worker's METRICS_PORT and the example webhook
 * receiver, which are not the API.
 */

type Json = Record<string, any>;
interface Route {
  method: string;
  template: string;
  regex: RegExp;
  params: number;
  op: Json;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const DOC_ID = 'urn:receptionist-api:openapi';
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

export class ConformanceError extends Error {}

export class Conformance {
  private readonly ajv: InstanceType<typeof Ajv2020>;
  private readonly routes: Route[];

  constructor(private readonly doc: Json) {
    // The document is not checked against JSON Schema's meta-schema here (compiling that took two thirds of building a
    // checker, once per test file): test/openapi-document/openapi-lint.cases.ts validates the document itself.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, validateSchema: false });
    (addFormats as unknown as (a: unknown) => void)(this.ajv);
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema(closedSchemas(doc), DOC_ID);
    this.routes = Object.entries<Json>(doc.paths)
      .flatMap(([template, item]) =>
        METHODS.filter((m) => item[m]).map((method) => ({
          method,
          template,
          regex: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
          params: (template.match(/\{/g) ?? []).length,
          op: item[method],
        })),
      )
      .sort((a, b) => a.params - b.params);
  }

  /** Every documented (operationId, status) of operations that need no /internal access. */
  documented(): { operationId: string; status: string }[] {
    return this.routes.flatMap((r) => Object.keys(r.op.responses ?? {}).map((status) => ({ operationId: r.op.operationId, status })));
  }

  /** Checks one exchange; returns the operationId it matched, or undefined for routes outside the document. */
  check(method: string, pathname: string, res: Exchange): string | undefined {
    const m = method.toLowerCase();
    const route = this.routes.find((r) => r.method === m && r.regex.test(pathname));
    if (!route) return undefined;
    const id = route.op.operationId as string;
    const where = `${method.toUpperCase()} ${route.template} (${id}) answered ${res.status}`;
    const status = String(res.status);
    const response = this.resolve(route.op.responses?.[status] ?? route.op.responses?.default);
    if (!response)
      throw new ConformanceError(
        `${where}: status ${status} is not documented (documented: ${Object.keys(route.op.responses).join(', ')})`,
      );
    this.checkHeaders(where, response, res.headers);
    this.checkBody(where, m, route.template, status, response, res);
    return id;
  }

  /**
   * Checks one webhook delivery as a receiver got it: its event type has an entry in the document's
   * `webhooks` section, each documented header is present and matches its schema, and the body matches
   * that entry's payload schema (closed, like every answer). Returns the event type.
   */
  checkWebhook(headers: Record<string, string | string[] | undefined>, rawBody: string): string {
    const body = JSON.parse(rawBody) as Json;
    const type = String(body.type);
    const where = `webhook delivery of ${type}`;
    const op = (this.doc.webhooks as Json | undefined)?.[type]?.post as Json | undefined;
    if (!op) throw new ConformanceError(`${where}: the event type has no entry in the document's webhooks section`);
    (op.parameters as Json[]).forEach((p, i) => {
      const value = headers[p.name as string];
      if (value === undefined && p.required) throw new ConformanceError(`${where}: documented header ${p.name} is missing`);
      if (value !== undefined)
        this.validate(`${where}: header ${p.name}`, ['webhooks', type, 'post', 'parameters', String(i), 'schema'], value);
    });
    this.validate(`${where}: body`, ['webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema'], body);
    return type;
  }

  /** Validates `value` against the schema at `at` (a path of keys into the document). */
  private validate(where: string, at: string[], value: unknown): void {
    const path = `#/${pointer(...at)}`;
    const validate = this.ajv.getSchema(`${DOC_ID}${path}`);
    if (!validate) throw new ConformanceError(`${where}: no schema at ${path}`);
    if (!validate(value)) {
      const errs = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(value)'} ${e.message} [schema ${e.schemaPath}]`);
      throw new ConformanceError(`${where} does not match ${path}:\n  ${errs.join('\n  ')}`);
    }
  }

  private checkHeaders(where: string, response: Json, headers: Headers): void {
    for (const [name, h] of Object.entries<Json>(response.headers ?? {})) {
      const header = this.resolve(h);
      if (header?.required && !headers.has(name)) throw new ConformanceError(`${where}: documented header ${name} is missing`);
    }
  }

  private checkBody(
    where: string,
    method: string,
    template: string,
    status: string,
    response: Json,
    res: { headers: Headers; body: unknown; text: string },
  ) {
    const content = response.content as Json | undefined;
    if (!content || method === 'head' || status === '204') return;
    const type = (res.headers.get('content-type') ?? '').split(';')[0].trim();
    if (!(type in content))
      throw new ConformanceError(`${where}: content type "${type}" is not documented (${Object.keys(content).join(', ')})`);
    if (!/json/.test(type) || !content[type].schema) return;
    this.validate(`${where}: body`, ['paths', template, method, 'responses', status, 'content', type, 'schema'], res.body);
  }

  private resolve(obj: Json | undefined): Json | undefined {
    if (!obj?.$ref) return obj;
    return (obj.$ref as string)
      .slice(2)
      .split('/')
      .reduce<Json>((o, k) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
  }
}

/** The run folder global-setup made; absent when Jest runs without it. */
const RUN_DIR = process.env.TEST_CONFORMANCE_DIR;

export function recordDocumented(c: Conformance): void {
  if (RUN_DIR) writeFileSync(join(RUN_DIR, 'documented.json'), JSON.stringify(c.documented()));
}

export function recordExercised(operationId: string, status: number): void {
  if (RUN_DIR) appendFileSync(join(RUN_DIR, `exercised-${process.pid}.tsv`), `${operationId}\t${status}\n`);
}

/** One answer as the checker reads it: `body` parsed when the content type is JSON. */
export interface Exchange {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** The document each running service serves (by base URL), fetched once. */
const served = new Map<string, Promise<Conformance>>();
/**
 * Checkers by the document's text: the apps of one test file mostly serve the same document, and a checker costs a
 * few hundred ms to build and more to compile the schemas its first answers meet.
 */
const checkers = new Map<string, Conformance>();

/** The checker of the document the service at `baseUrl` serves, fetched once per service, built once per document. */
export function servedConformance(baseUrl: string): Promise<Conformance> {
  const origin = new URL(baseUrl).origin;
  let c = served.get(origin);
  if (!c) {
    c = fetch(new URL('/v1/openapi.json', origin))
      .then((r) => r.text())
      .then((text) => {
        let checker = checkers.get(text);
        if (!checker) {
          checker = new Conformance(JSON.parse(text) as Json);
          recordDocumented(checker);
          checkers.set(text, checker);
        }
        return checker;
      });
    served.set(origin, c);
    c.catch(() => served.delete(origin));
  }
  return c;
}

/** Drops the cached document of a service that stopped (its port may serve another one later). */
export function forgetServed(baseUrl: string): void {
  served.delete(new URL(baseUrl).origin);
}

/**
 * Checks one exchange with the service at `baseUrl` against the document that
 * service serves, and records it for the coverage report. `/internal` routes
 * and routes outside the document are not checked. Throws ConformanceError.
 */
export async function checkExchange(baseUrl: string, method: string, path: string, res: Exchange): Promise<string | undefined> {
  const { pathname } = new URL(path, baseUrl);
  if (pathname.startsWith('/internal/')) return undefined;
  const operationId = (await servedConformance(baseUrl)).check(method, pathname, res);
  if (operationId) recordExercised(operationId, res.status);
  return operationId;
}

/**
 * The same check for a fetch Response a test made itself (bytes, streams,
 * a generated client): a JSON body is read from a clone, any other body is
 * left unread for the test. Returns the response.
 */
export async function checkResponse(baseUrl: string, method: string, path: string | URL, response: Response): Promise<Response> {
  const json = /json/.test(response.headers.get('content-type') ?? '');
  const text = json ? await response.clone().text() : '';
  await checkExchange(baseUrl, method, String(path), {
    status: response.status,
    headers: response.headers,
    body: text ? JSON.parse(text) : text,
    text,
  });
  return response;
}

/** node:http's header object as fetch Headers, for checking an answer read with node:http (its body left to the test). */
export function toHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) for (const v of [value ?? []].flat()) headers.append(name, v);
  return headers;
}
