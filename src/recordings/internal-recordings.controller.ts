import { Controller, Delete, HttpCode, Param, Put, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { DomainError } from '../common/errors/domain-error.js';
import { InternalRoute } from '../common/http/access.decorators.js';
import { NoQueryDto } from '../common/validation/no-query.dto.js';
import { RemovedRecordingDto, StoredRecordingDto } from './dto/internal-recording.dto.js';
import { RecordingsService } from './recordings.service.js';

/**
 * The receptionist pipeline's port for recordings (INTERNAL_API_TOKEN).
 * PUT streams an audio/ogg body to the store; DELETE removes the recording.
 */
@Controller('internal/v1/orgs/:org_id/calls/:call_id/recording')
export class InternalRecordingsController {
  constructor(private readonly recordings: RecordingsService) {}

  @Put()
  @HttpCode(200)
  @InternalRoute()
  async put(
    @Param('org_id') orgId: string,
    @Param('call_id') callId: string,
    @Query() _query: NoQueryDto,
    @Req() req: FastifyRequest,
  ): Promise<StoredRecordingDto> {
    const body = req.body as Readable;
    const declared = req.headers['content-length'];
    const declaredLength = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : undefined;
    try {
      const r = await this.recordings.store(orgId, callId, body, { via: 'internal_api', declaredLength });
      return {
        org_id: r.org_id,
        call_id: r.call_id,
        has_recording: true,
        size_bytes: r.size_bytes,
        sha256: r.sha256,
        replaced: r.replaced,
      };
    } catch (err) {
      // Refused part-way (or before reading): answer now. Drain what the client still sends while the
      // answer goes out, and close the connection unless the rest is known to be small.
      body.resume();
      const small = declaredLength !== undefined && declaredLength <= this.recordings.maxBytes;
      if (err instanceof DomainError && !small) throw err.withHeader('Connection', 'close');
      throw err;
    }
  }

  @Delete()
  @HttpCode(200)
  @InternalRoute()
  async remove(
    @Param('org_id') orgId: string,
    @Param('call_id') callId: string,
    @Query() _query: NoQueryDto,
  ): Promise<RemovedRecordingDto> {
    const r = await this.recordings.remove(orgId, callId, 'internal_api');
    return { org_id: r.org_id, call_id: r.call_id, has_recording: false, removed: r.removed };
  }
}
