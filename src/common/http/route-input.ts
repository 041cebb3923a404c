import { Param } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { InvalidRequestError, NotFoundError } from '../errors/problems.js';
import { eventIdMessage, isEventId, isPlainId, isUuid } from '../ids.js';
import { NoQueryDto } from '../validation/no-query.dto.js';
import { apiValidationPipe } from '../validation/validation.pipe.js';
import type { PathParamForm, PathParamRule, RouteDeclaration } from './route-declaration.js';

const noQuery = apiValidationPipe();

/** A control character (C0 with NUL, DEL, C1), U+FFFD (what a byte that was not UTF-8 decodes to) or an unpaired surrogate. */
// eslint-disable-next-line no-control-regex -- control characters are what it finds.
const NOT_TEXT = /[\u0000-\u001f\u007f-\u009f\ufffd]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const TOKEN = /^[A-Za-z0-9_-]{1,256}$/;

/** Each form's check, and the 400's words for a value that fails it (when the parameter answers 400). */
const FORMS: Record<PathParamForm, { holds: (value: string) => boolean; refusal: (name: string) => string }> = {
  'plain-id': { holds: isPlainId, refusal: (name) => `${name} must be 1 to 128 letters, digits, or _ . : - (a letter or digit first).` },
  uuid: { holds: isUuid, refusal: (name) => `${name} must be a uuid.` },
  'event-id': { holds: isEventId, refusal: (name) => `${eventIdMessage(name)}.` },
  token: { holds: (value) => TOKEN.test(value), refusal: (name) => `${name} is not a token.` },
  text: {
    holds: (value) => value.length > 0 && !NOT_TEXT.test(value),
    refusal: (name) => `${name} must be text without control characters.`,
  },
};

/** A path parameter's value against its declared form: 404 like an unknown id, or 400 naming the parameter. */
function checkPathParam(name: string, value: string, rule: PathParamRule): void {
  const form = FORMS[rule.form];
  if (form.holds(value)) return;
  if (rule.notFoundAs) throw new NotFoundError(rule.notFoundAs);
  throw new InvalidRequestError(form.refusal(name), name);
}

/**
 * The path parameters and query a route declares, checked before its
 * handler runs: each path parameter against its declared form (an id that
 * cannot exist answers 404 like an unknown one, before any query sees it;
 * a typed id its documented 400), and a route that declares no query refuses
 * any parameter sent, naming it (a typo never passes silently). A query DTO
 * is validated where the handler binds it with @Query().
 */
export async function checkDeclaredInput(req: FastifyRequest, d: RouteDeclaration): Promise<void> {
  const params = (req.params ?? {}) as Record<string, string>;
  for (const [name, rule] of Object.entries(d.params)) checkPathParam(name, params[name] ?? '', rule);
  if (d.query === 'none') await noQuery.transform(req.query, { type: 'query', metatype: NoQueryDto, data: undefined });
}

/**
 * A declared path parameter's value, already checked by its declaration
 * (Nest's own path binding, so the document lists it where it always has).
 */
export const PathParam = (name: string): ParameterDecorator => Param(name);
