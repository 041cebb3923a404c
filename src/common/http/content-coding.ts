import type { IncomingHttpHeaders } from 'node:http';
import { UnsupportedMediaTypeError } from '../errors/problems.js';

/** A content coding as RFC 9110 spells one (a token); anything else is not repeated back. */
const CODING = /^[!#$%&'*+.^_`|~0-9a-z-]{1,32}$/;

/**
 * Request bodies are read as sent: a body in any Content-Encoding other than
 * `identity` (gzip, br, an unknown coding, a list of them) is refused with 415
 * naming the coding (RFC 9110, section 8.4.1), before a byte of it is read, so
 * nothing is written. Decoding bodies would buy clients nothing the API needs
 * (its largest body, a call document, is 8 MiB of JSON sent by the pipeline)
 * and would add a decompression bound to every body route.
 */
export function refuseContentCoding(headers: IncomingHttpHeaders): void {
  const header = headers['content-encoding'];
  if (header === undefined) return;
  const codings = header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter(Boolean);
  const coding = codings.find((c) => c !== 'identity');
  if (coding === undefined) return;
  const named = CODING.test(coding) ? `Content-Encoding "${coding}"` : 'This Content-Encoding';
  throw new UnsupportedMediaTypeError(`${named} is not supported on request bodies; send the body uncompressed (identity).`);
}
