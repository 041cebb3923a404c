import { Body, Controller, HttpCode, Param, Put, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { InvalidRequestError } from '../common/errors/problems.js';
import { InternalRoute } from '../common/http/access.decorators.js';
import { DocumentInvalidError } from '../common/validation/validate-document.js';
import { IngestionService, type IngestResult } from './ingestion.service.js';

/** The receptionist pipeline hands over a finished or re-processed call. Internal: INTERNAL_API_TOKEN, not in OpenAPI. */
@Controller('internal/v1/orgs/:org_id/calls')
export class IngestionController {
  constructor(private readonly ingestion: IngestionService) {}

  /** 201 when the call is new, 200 when it replaced an earlier version (a re-processing). */
  @Put(':call_id')
  @InternalRoute()
  @HttpCode(200)
  async put(
    @Param('org_id') orgId: string,
    @Param('call_id') callId: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<IngestResult> {
    try {
      const result = await this.ingestion.ingest(orgId, body, callId);
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
