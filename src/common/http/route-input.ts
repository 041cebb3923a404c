import { Param } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { NotFoundError } from '../errors/problems.js';
import { isPlainId } from '../ids.js';
import { NoQueryDto } from '../validation/no-query.dto.js';
import { apiValidationPipe } from '../validation/validation.pipe.js';
import type { RouteDeclaration } from './route-declaration.js';

const noQuery = apiValidationPipe();

/**
 * The path parameters and query a route declares, checked before its
 * handler runs: a path id that cannot exist answers 404 like an unknown one
 * (before any query sees it), and a route that declares no query refuses any
 * parameter sent, naming it (a typo never passes silently). A query DTO is
 * validated where the handler binds it with @Query().
 */
export async function checkDeclaredInput(req: FastifyRequest, d: RouteDeclaration): Promise<void> {
  const params = (req.params ?? {}) as Record<string, string>;
  for (const [name, rule] of Object.entries(d.params)) {
    if (rule.notFoundAs && !isPlainId(params[name] ?? '')) throw new NotFoundError(rule.notFoundAs);
  }
  if (d.query === 'none') await noQuery.transform(req.query, { type: 'query', metatype: NoQueryDto, data: undefined });
}

/**
 * A declared path parameter's value, already checked by its declaration
 * (Nest's own path binding, so the document lists it where it always has).
 */
export const PathParam = (name: string): ParameterDecorator => Param(name);
