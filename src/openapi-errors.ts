import type { OpenAPIObject } from '@nestjs/swagger';
import { allErrorCodes } from './common/errors/domain-error.js';
import { ERROR_CODES } from './common/errors/error-codes.js';
import { CONSOLE_ERRORS } from './console/index.js';
import { EVENTS_ERRORS } from './events/index.js';
import { LEADS_ERRORS } from './leads/index.js';
import { RECEPTIONIST_ERRORS } from './receptionist/index.js';
import { WEBHOOKS_ERRORS } from './webhooks/index.js';

/**
 * Every problem code the service answers: the kernel's, then each context's own (`<context>.errors.ts`), each
 * declared once. A context with codes of its own adds its table here, once; its codes are then added in its folder.
 */
export const SERVICE_ERROR_CODES = allErrorCodes(
  ERROR_CODES,
  EVENTS_ERRORS,
  RECEPTIONIST_ERRORS,
  LEADS_ERRORS,
  WEBHOOKS_ERRORS,
  CONSOLE_ERRORS,
);

/**
 * The document's Problem schema, and each one extending it (`AfterLostProblem`, ...), names every code: the kernel,
 * which declares the schema, cannot name the contexts'.
 */
export function documentErrorCodes(doc: OpenAPIObject): void {
  const codes = Object.keys(SERVICE_ERROR_CODES);
  for (const schema of Object.values(doc.components?.schemas ?? {}) as { properties?: Record<string, { enum?: unknown[] }> }[]) {
    const code = schema.properties?.code;
    if (code?.enum?.length === 0) code.enum = codes;
  }
  if (!(doc.components?.schemas?.Problem as { properties: Record<string, { enum?: unknown[] }> }).properties.code.enum?.length)
    throw new Error('the Problem schema has no code enum to fill');
}
