import { Injectable, type PipeTransform } from '@nestjs/common';
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
