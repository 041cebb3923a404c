import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { DomainError } from '../common/errors/domain-error.js';
import { Endpoint, INTERNAL, pathId, streamBody, uuidPathId, type EndpointSpec } from '../common/http/access.decorators.js';
import { PathParam } from '../common/http/route-input.js';
import { RemovedRecordingDto, StoredRecordingDto } from './dto/internal-recording.dto.js';
import { RecordingsService } from './recordings.service.js';

/** Both routes: the pipeline's token; a firm or call id that cannot exist answers 404 like an unknown call; 200 on success. */
const INTERNAL_RECORDING: Pick<EndpointSpec, 'access' | 'params' | 'status'> = {
  access: INTERNAL,
  params: { org_id: uuidPathId('The call'), call_id: pathId('The call') },
  status: 200,
};

/**
 * The receptionist pipeline's port for recordings (INTERNAL_API_TOKEN).
 * PUT streams an audio/ogg body to the store; DELETE removes the recording.
 */
@Controller('internal/v1/orgs/:org_id/calls/:call_id/recording')
export class InternalRecordingsController {
  constructor(private readonly recordings: RecordingsService) {}

  /** The body is the untouched request stream (recordings.http.ts); RECORDING_MAX_BYTES bounds it as it streams. */
  @Endpoint({ ...INTERNAL_RECORDING, method: 'PUT', body: streamBody('audio/ogg') })
  async put(
    @PathParam('org_id') orgId: string,
    @PathParam('call_id') callId: string,
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

  @Endpoint({ ...INTERNAL_RECORDING, method: 'DELETE' })
  async remove(@PathParam('org_id') orgId: string, @PathParam('call_id') callId: string): Promise<RemovedRecordingDto> {
    const r = await this.recordings.remove(orgId, callId, 'internal_api');
    return { org_id: r.org_id, call_id: r.call_id, has_recording: false, removed: r.removed };
  }
}
