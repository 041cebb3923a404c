import { Body, Controller, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { InvalidRequestError } from '../common/errors/problems.js';
import { Endpoint, INTERNAL, jsonBody, pathParam, uuidPathId } from '../common/http/access.decorators.js';
import { PathParam } from '../common/http/route-input.js';
import { DocumentInvalidError } from '../common/validation/validate-document.js';
import { IngestionService, type IngestResult } from './ingestion.service.js';

/**
 * The largest call document the route reads. Its DTO bounds each part (10,000 turns of up to 20,000
 * characters, short fields elsewhere) but not their product, which no request should reach; 8 MiB is what
 * the route has always read (the former limit for every route), about 800 bytes for each of 10,000 turns
 * plus the rest of the document. Only the pipeline's INTERNAL_API_TOKEN reaches the parser, and a document
 * nested deeper than 32 levels is refused before it is parsed.
 */
export const CALL_DOCUMENT_BYTES = 8 * 1024 * 1024;

/** The receptionist pipeline hands over a finished or re-processed call. Internal: INTERNAL_API_TOKEN, not in OpenAPI. */
@Controller('internal/v1/orgs/:org_id/calls')
export class IngestionController {
  constructor(private readonly ingestion: IngestionService) {}

  /** 201 when the call is new, 200 when it replaced an earlier version (a re-processing). */
  @Endpoint({
    method: 'PUT',
    path: ':call_id',
    access: INTERNAL,
    body: jsonBody(CALL_DOCUMENT_BYTES),
    // The call id is the pipeline's to choose (the call is created): one that is not a plain id is 400 naming it.
    params: { org_id: uuidPathId('The firm'), call_id: pathParam(undefined, false, 'plain-id') },
    query: 'any',
    status: 200,
  })
  async put(
    @PathParam('org_id') orgId: string,
    @PathParam('call_id') callId: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<IngestResult> {
    try {
      // The pipeline's calls are live; test-mode calls come only through test helpers.
      const result = await this.ingestion.ingest(orgId, body, callId, { livemode: true });
      if (result.status === 'created') reply.status(201);
      return result;
    } catch (e) {
      if (e instanceof DocumentInvalidError) {
        const [first] = e.problems;
        throw new InvalidRequestError(`The call document is not valid: ${first.path} ${first.message}.`, first.path, {
          errors: e.problems.map((p) => ({ param: p.path, message: p.message })),
        });
      }
      throw e;
    }
  }
}
