import { Injectable, Param, type PipeTransform } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { NotFoundError } from '../errors/problems.js';
import { isPlainId } from '../ids.js';

/**
 * A path id that cannot name anything (a NUL byte, control or non-ASCII
 * characters, 10,000 characters) answers 404 exactly like an unknown id,
 * before it reaches a query PostgreSQL would refuse.
 */
@Injectable()
export class PathIdPipe implements PipeTransform<string, string> {
  constructor(private readonly what: string) {}

  transform(value: string): string {
    if (!isPlainId(value)) throw new NotFoundError(this.what);
    return value;
  }
}

export interface PathIdDoc {
  description: string;
  example: string;
}

/**
 * The path parameter `name`: refused as an unknown `what` when it cannot name anything, and
 * documented from the same declaration, so the check and the document cannot drift apart.
 */
export function PathId(name: string, what: string, doc: PathIdDoc): ParameterDecorator {
  return (target, key, index) => {
    Param(name, new PathIdPipe(what))(target, key, index);
    if (key === undefined) return;
    const method = Object.getOwnPropertyDescriptor(target, key);
    if (method) ApiParam({ ...doc, name })(target, key, method);
  };
}
