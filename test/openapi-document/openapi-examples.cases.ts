import { SERVICE_ERROR_CODES } from '../../src/openapi-errors';
import { walkDocument } from '../support/doc-walk';
import { escapePointer, servedDocument, type ServedDocument } from '../support/served-document';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

/**
 * Every example of the served document fits: each error example carries its
 * response's status and the code documented for it, and every example
 * (bodies, parameters, headers, properties) validates against its schema.
 */
type Json = Record<string, any>;

let t: TestApp;
let served: ServedDocument;
let doc: Json;

beforeAll(async () => {
  t = await sharedTestApp();
  served = await servedDocument(t);
  doc = served.doc;
});

/** status of each problem code, from the tables that declare the codes (the kernel's and each context's). */
function problemStatuses(): Record<string, number> {
  return Object.fromEntries(Object.entries(SERVICE_ERROR_CODES).map(([code, answer]) => [code, answer.status]));
}

describe('every example fits', () => {
  it('each error example carries its response status and the code documented for that status', () => {
    const statusOf = problemStatuses();
    const wrong: string[] = [];
    let checked = 0;
    for (const { label, op } of served.operations()) {
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        const media = response.content?.['application/problem+json'];
        if (!/^[45]/.test(status) || !media) continue;
        checked++;
        // One example, or one per code when the status has several meanings (a 409 of test and redeliver).
        const examples: Json[] = media.examples ? Object.values<Json>(media.examples).map((e) => e.value) : [media.example];
        const named = [...String(response.description).matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).filter((c) => c in statusOf);
        for (const example of examples) {
          if (example?.status !== Number(status)) wrong.push(`${label} ${status}: example status ${example?.status}`);
          if (statusOf[example?.code] !== Number(status))
            wrong.push(`${label} ${status}: code ${example?.code} is a ${statusOf[example?.code]}`);
          if (!named.includes(example?.code))
            wrong.push(`${label} ${status}: code ${example?.code} is not the one described (${named.join(', ')})`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  it('every example validates against its schema: bodies, parameters, headers and each property', () => {
    const failures: string[] = [];
    let checked = 0;
    const check = (schemaAt: string, value: unknown) => {
      checked++;
      failures.push(...served.validateAt(schemaAt, value));
    };
    const resolve = (h: Json) => (h.$ref ? doc.components.headers[String(h.$ref).split('/').pop()!] : h);
    const sections = [
      ...served.operations(),
      ...Object.entries<Json>(doc.webhooks).map(([type, item]) => ({ at: `#/webhooks/${escapePointer(type)}/post`, op: item.post })),
    ];
    for (const { at, op } of sections) {
      (op.parameters ?? []).forEach((p: Json, i: number) => {
        if (p.example !== undefined) check(`${at}/parameters/${i}/schema`, p.example);
        if (p.schema?.example !== undefined) check(`${at}/parameters/${i}/schema`, p.schema.example);
        for (const e of Object.values<Json>(p.examples ?? {})) check(`${at}/parameters/${i}/schema`, e.value);
      });
      for (const [type, media] of Object.entries<Json>(op.requestBody?.content ?? {}))
        if (media.example !== undefined) check(`${at}/requestBody/content/${escapePointer(type)}/schema`, media.example);
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        for (const [type, media] of Object.entries<Json>(response.content ?? {})) {
          const schemaAt = `${at}/responses/${status}/content/${escapePointer(type)}/schema`;
          if (media.example !== undefined) check(schemaAt, media.example);
          for (const e of Object.values<Json>(media.examples ?? {})) check(schemaAt, e.value);
        }
        for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
          // A shared header is checked where it is declared (components.headers), once per use.
          const declared = header.$ref
            ? `#/components/headers/${String(header.$ref).split('/').pop()}`
            : `${at}/responses/${status}/headers/${escapePointer(name)}`;
          if (resolve(header).example !== undefined) check(`${declared}/schema`, resolve(header).example);
        }
      }
    }
    walkDocument(doc.components.schemas, ({ pointer, node }) => {
      if (node.example !== undefined) check(pointer.replace(/^#/, '#/components/schemas'), node.example);
    });
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(500);
  });
});
