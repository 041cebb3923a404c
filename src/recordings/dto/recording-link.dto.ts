import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { LINK_LIFETIME_ADJECTIVE, LINK_LIFETIME_TEXT } from '../recording-rules.js';

@ApiSchema({ description: `A ${LINK_LIFETIME_ADJECTIVE} playback link for the recording of one call. The url is a credential.` })
export class RecordingLinkDto {
  @ApiProperty({ description: 'The call whose recording the link plays.', example: 'call_01jd5x8m3q7k2w9n4b6c8d0f2h' }) call_id: string;
  @ApiProperty({
    description:
      'Plays the recording with no API key, for this one call, until expires_at. It is a credential: do not log, store or share it. Use it as the src of an audio element; it sends no cross-origin headers.',
    example: 'https://api.example.com/v1/recordings/Zx4mB9x2QeT7vK1pZs8NwY3cHd6LgR0aUf5jQ2kP7sA',
  })
  url: string;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    description: `ISO 8601 UTC, ${LINK_LIFETIME_TEXT} after creation.`,
    example: '2026-05-01T15:03:12Z',
  })
  expires_at: string;
}
