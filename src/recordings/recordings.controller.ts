import { applyDecorators, Headers, Res } from '@nestjs/common';
import { ApiHeader, ApiProduces, ApiResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Endpoint, keyed, linkToken, pathId, pathParam, PUBLIC, type EndpointSpec } from '../common/http/access.decorators.js';
import { TaggedController } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { PathParam } from '../common/http/route-input.js';
import { RecordingLinkDto } from './dto/recording-link.dto.js';
import { RecordingLinksService } from './recording-links.service.js';
import { LINK_LIFETIME_ADJECTIVE, LINK_LIFETIME_TEXT } from './recording-rules.js';
import { headNotAllowed, sendAudio } from './recordings.http.js';
import { RecordingsService } from './recordings.service.js';

const RANGE_DOC =
  'One byte range: bytes=N-, bytes=N-M or bytes=-N. A range the file can satisfy answers 206 with just that part; any other value (several ranges, garbage, unsatisfiable) is ignored and the whole file is returned with 200.';

const AUDIO = { 'audio/ogg': { schema: { type: 'string', format: 'binary', contentMediaType: 'audio/ogg' } } };
/** A header sent on every such answer, always with this one value. */
const fixedHeader = (value: string, why: string) => ({
  description: `Always \`${value}\`${why}`,
  required: true,
  schema: { type: 'string', const: value },
  example: value,
});
const AUDIO_HEADERS = {
  'Accept-Ranges': { description: 'Always `bytes`.', schema: { type: 'string' } },
  'Content-Length': { description: 'Bytes in this response.', schema: { type: 'integer' } },
  ETag: { description: 'Changes when the recording is replaced; usable in If-Range.', schema: { type: 'string' } },
  'Cache-Control': fixedHeader('private, no-store', ': the audio is confidential, so no shared or stored copy.'),
  'X-Content-Type-Options': fixedHeader('nosniff', ': browsers take the audio as the audio/ogg it is.'),
};
const LINK_HEADERS = { 'Referrer-Policy': fixedHeader('no-referrer', ': the link is a credential, kept out of Referer headers.') };
const CONTENT_RANGE = {
  'Content-Range': { description: 'bytes first-last/size', schema: { type: 'string', example: 'bytes 0-1023/39424' } },
};

const CALL_ID_DOC = { description: 'As the calls list returned it.', example: 'call_01jd5x8m3q7k2w9n4b6c8d0f2h' };
const CALL_ID = { call_id: pathId('The call', CALL_ID_DOC) };
/** The link's token is its credential: the access log replaces it whatever it holds. */
const TOKEN = {
  token: pathParam(
    {
      description: 'Exactly as at the end of the url returned by the recording-link endpoint.',
      example: 'Zx4mB9x2QeT7vK1pZs8NwY3cHd6LgR0aUf5jQ2kP7sA',
    },
    true,
  ),
};
/** HEAD answers 405 to anyone, key or not: there is nothing to authorise. */
const HEAD: Pick<EndpointSpec, 'method' | 'query' | 'problems' | 'notFound' | 'refusesMethod'> = {
  method: 'HEAD',
  query: 'any',
  problems: [400, 404, 405, 503],
  // Its only 404 is the router's, for a path that names no route; a HEAD answer carries no body.
  notFound: 'The resource was not found.',
  refusesMethod: true,
};
const HEAD_DOC = {
  summary: 'HEAD is not supported',
  description:
    'Answers 405 with `Allow: GET`; use GET. A target that is not a valid URL (raw non-ASCII bytes) is 400, and a path that names no route (an id with broken percent-encoding) is 404, as on every path.',
};

/** Audio responses in the OpenAPI document: 200 whole file, 206 one range. */
function ApiAudioResponses(extra: Record<string, unknown> = {}) {
  const headers = { ...AUDIO_HEADERS, ...extra };
  return applyDecorators(
    ApiProduces('audio/ogg'),
    ApiHeader({ name: 'Range', required: false, description: RANGE_DOC }),
    ApiResponse({
      status: 200,
      description: 'The whole recording (Opus in Ogg), streamed. HEAD is not supported: it answers 405 with Allow: GET.',
      content: AUDIO,
      headers,
    }),
    ApiResponse({
      status: 206,
      description: 'Partial content: the one requested byte range.',
      content: AUDIO,
      headers: { ...headers, ...CONTENT_RANGE },
    }),
  );
}

@TaggedController('Recordings', 'v1/calls/:call_id')
export class CallRecordingController {
  constructor(
    private readonly recordings: RecordingsService,
    private readonly links: RecordingLinksService,
  ) {}

  @Endpoint({
    method: 'GET',
    path: 'recording',
    access: keyed('calls:recording'),
    params: CALL_ID,
    op: {
      id: 'getCallRecording',
      summary: 'Download the recording of a call',
      description:
        "The caller's call as audio/ogg (Opus in Ogg), streamed; a transferred call's briefing to staff is not included. Intended for servers holding a key; browsers use a recording link.",
    },
    problems: [400, 404],
    notFound: 'The recording of this call was not found.',
    doc: [ApiAudioResponses()],
  })
  async get(
    @CurrentPrincipal() principal: ApiPrincipal,
    @PathParam('call_id') callId: string,
    @Headers('range') range: string | undefined,
    @Headers('if-range') ifRange: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const playback = await this.recordings.openForKey(principal, callId, { range, ifRange });
    sendAudio(reply, playback);
  }

  @Endpoint({
    ...HEAD,
    path: 'recording',
    access: PUBLIC,
    params: { call_id: pathParam(CALL_ID_DOC) },
    op: { id: 'headCallRecording', ...HEAD_DOC },
  })
  head(): never {
    throw headNotAllowed();
  }

  @Endpoint({
    method: 'POST',
    path: 'recording-link',
    access: keyed('calls:recording'),
    params: CALL_ID,
    status: 201,
    op: {
      id: 'createRecordingLink',
      summary: `Create a ${LINK_LIFETIME_ADJECTIVE} playback link for the recording of a call`,
      description: `The url plays the recording with no API key, for that one call, for ${LINK_LIFETIME_TEXT}; it stops sooner when the creating key is revoked or the recording is removed. It is a credential: never log, store or share it. Create a new link each time playback is needed.`,
    },
    ok: {
      type: RecordingLinkDto,
      description: 'A new link (201 Created: every call creates a new link). The url is a credential, so the answer is not cached.',
      headers: { 'Cache-Control': fixedHeader('no-store', ': the url is a credential.') },
    },
    problems: [400, 404, 413, 415],
    notFound: 'The recording of this call was not found.',
  })
  async createLink(
    @CurrentPrincipal() principal: ApiPrincipal,
    @PathParam('call_id') callId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RecordingLinkDto> {
    const link = await this.links.create(principal, callId);
    reply.header('cache-control', 'no-store');
    return { call_id: link.callId, url: link.url, expires_at: link.expiresAt.toISOString() };
  }
}

@TaggedController('Recordings', 'v1/recordings')
export class RecordingLinkController {
  constructor(private readonly links: RecordingLinksService) {}

  @Endpoint({
    method: 'GET',
    path: ':token',
    access: linkToken('token'),
    params: TOKEN,
    op: {
      id: 'playRecording',
      summary: 'Play a recording through a recording link (no key: the link is the credential)',
      description:
        'Use it as the src of an audio element: it sends no cross-origin headers. A page with a content security policy needs media-src allowing the API origin. Each start of playback is recorded in the audit log.',
    },
    problems: [400, 404, 503],
    notFound: 'The recording link was not found.',
    doc: [ApiAudioResponses(LINK_HEADERS)],
  })
  async play(
    @PathParam('token') token: string,
    @Headers('range') range: string | undefined,
    @Headers('if-range') ifRange: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const playback = await this.links.open(token, { range, ifRange });
    // The url is a credential: keep it out of Referer headers and shared caches.
    sendAudio(reply, playback, { 'referrer-policy': 'no-referrer' });
  }

  @Endpoint({ ...HEAD, path: ':token', access: linkToken('token'), params: TOKEN, op: { id: 'headRecording', ...HEAD_DOC } })
  head(): never {
    throw headNotAllowed();
  }
}
