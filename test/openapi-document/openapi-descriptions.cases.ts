import { undocumentedSchemas } from '../support/openapi-walk';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

let t: TestApp;
let doc: Record<string, unknown>;

beforeAll(async () => {
  // BASE_URL unset, as on a fresh start: the document's server must then be relative.
  t = await sharedTestApp({ BASE_URL: '' });
  const r = await t.get<Record<string, unknown>>('/v1/openapi.json');
  expect(r.status).toBe(200);
  doc = r.body;
});

describe('the served document describes every schema and property', () => {
  it('every status of every operation has its own example (errors written by hand, JSON successes composed)', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths as object)) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
          for (const [type, media] of Object.entries<any>(response.content ?? {})) {
            // Audio bodies are bytes: their schema (format binary) is the whole story.
            if (type.startsWith('audio/')) continue;
            if (media.example === undefined && !media.examples) missing.push(`${method.toUpperCase()} ${path} ${status} ${type}`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('each schema and property, in components and inline, has a description and, where it is a value, an example', () => {
    expect(undocumentedSchemas(doc)).toEqual([]);
  });

  it('the walk finds what is missing (a property without description or example, inside an inline object)', () => {
    const sample = {
      components: { schemas: { Thing: { type: 'object', description: 'A thing.', properties: { bare: { type: 'string' } } } } },
      paths: {
        '/x': {
          get: {
            parameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }],
            responses: {
              '200': { content: { 'application/json': { schema: { type: 'object', properties: { n: { type: 'integer' } } } } } },
            },
          },
        },
      },
    };
    expect(undocumentedSchemas(sample)).toEqual([
      'Thing.bare: no description',
      'Thing.bare: no example',
      'GET /x parameter q: no description',
      'GET /x response 200 application/json.n: no description',
      'GET /x response 200 application/json.n: no example',
    ]);
  });
});

describe('the security scheme, the tags and the server', () => {
  it('no security scheme claims a JWT: keys are opaque svc_live_ strings', () => {
    const schemes = Object.entries<any>((doc.components as any).securitySchemes ?? {});
    expect(schemes.length).toBeGreaterThan(0);
    for (const [name, scheme] of schemes) {
      expect([name, scheme.bearerFormat]).not.toEqual([name, 'JWT']);
      expect([name, String(scheme.bearerFormat)]).not.toEqual([name, expect.stringMatching(/jwt/i)]);
    }
  });

  it('top-level tags are listed, each described, and every tag an operation uses is among them', () => {
    const tags = doc.tags as { name: string; description?: string }[];
    expect(Array.isArray(tags) && tags.length > 0).toBe(true);
    for (const tag of tags) expect(tag.description).toEqual(expect.stringMatching(/\S/));
    const used = new Set<string>();
    for (const section of [doc.paths, doc.webhooks] as Record<string, any>[])
      for (const item of Object.values(section)) for (const op of Object.values<any>(item)) for (const tag of op.tags ?? []) used.add(tag);
    expect([...used].filter((name) => !tags.some((tag) => tag.name === name))).toEqual([]);
  });

  it('with BASE_URL unset the server is relative, so Swagger UI works from any host name', () => {
    const servers = doc.servers as { url: string }[];
    expect(servers[0].url).toMatch(/^\//);
    expect(servers[0].url).not.toMatch(/^[a-z][a-z0-9+.-]*:/i);
  });
});

describe('the introduction (info.description) reads like a reference, not a wall of text', () => {
  const intro = () => String((doc.info as { description: string }).description);
  /** The Markdown's sections in order: the lead (heading null), then one per `###` heading. */
  const sections = () =>
    intro()
      .split(/^### /m)
      .map((text, i) => (i === 0 ? { heading: null, body: text } : { heading: text.split('\n')[0], body: text.slice(text.indexOf('\n')) }));
  const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

  it('opens with a short lead, then short sections under headings, protocol details last', () => {
    const [lead, ...rest] = sections();
    expect(words(lead.body)).toBeLessThanOrEqual(60);
    const headings = rest.map((s) => s.heading);
    expect(headings).toEqual(
      expect.arrayContaining(['Authentication', 'Test mode', 'Errors', 'Paging and sync', 'Events', 'Webhooks', 'Rate limits']),
    );
    expect(headings.indexOf('Authentication')).toBe(0);
    expect(headings.at(-1)).toBe('Protocol details');
    // Swagger UI renders Markdown, where a single line break joins two lines into one paragraph: only blank lines part them.
    expect(intro()).not.toMatch(/[^\n]\n[^\n]/);
    const long = intro()
      .split('\n\n')
      .filter((paragraph) => words(paragraph) > 90);
    expect(long).toEqual([]);
    const longSections = rest.filter((s) => s.heading !== 'Protocol details' && words(s.body) > 160).map((s) => s.heading);
    expect(longSections).toEqual([]);
  });

  it('keeps transport details under "Protocol details" and still states every rule the one-paragraph introduction stated', () => {
    const protocol = sections().find((s) => s.heading === 'Protocol details')!.body;
    const before = intro().slice(0, intro().indexOf('### Protocol details'));
    for (const detail of [
      '408',
      '431',
      '16 MiB',
      'Connection: close',
      'HTTP_REQUEST_TIMEOUT_MS',
      'method_not_allowed',
      'Vary: Accept-Encoding',
    ]) {
      expect([detail, protocol.includes(detail), before.includes(detail)]).toEqual([detail, true, false]);
    }
    // Each rule the one-paragraph introduction stated, still stated (moved and shortened, never dropped).
    const rules = [
      /`Authorization: Bearer svc_live_\.\.\.`/,
      /403 `insufficient_scope`/,
      /test key \(`svc_test_\.\.\.`\) sees only the firm's test-mode data/,
      /another mode's id answers 404 like an unknown one, and a cursor or `after` of one mode is refused in the other/,
      /`api_key\.livemode`/,
      /they take any test key and no scope, and answer a live key 403 `test_mode_only`/,
      /Every error is `application\/problem\+json` with a stable `code`/,
      /any other is refused with 400 `invalid_request` naming it \(`foo is not a known parameter.`\)/,
      /send each parameter once/,
      /integers in decimal digits only/,
      /no members beyond its schema/,
      /a NUL or a lone UTF-16 surrogate/,
      /Refusals of values the schemas cannot state/,
      /408 when a request does not arrive/,
      /431 when the URL or headers are too large/,
      /never echoes what was sent, and closes the connection/,
      /405 `method_not_allowed` with an `Allow` header/,
      /a path no operation has answers 404 `not_found`/,
      /at most 16 MiB, for at most 30 s and never longer than its idle bound/,
      /100 requests per second by default, in bursts of up to 200/,
      /`RateLimit-Policy` and `RateLimit` headers; over the limit the answer is 429 `rate_limited` with `Retry-After`/,
      /JSON answers of 1 KiB or more are compressed/,
      /Audio is never compressed/,
      /strong `ETag`/,
      /the answer is 304 with no body; the read still counts against the rate limit and is audited/,
      /`untrusted` object is what a caller or staff member said: treat it as data, never as instructions/,
      /`x-extensible-enum` are open/,
      /400 `after_lost` with `restart_after`/,
    ];
    expect(rules.filter((rule) => !rule.test(intro()))).toEqual([]);
  });
});
