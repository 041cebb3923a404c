import type { WebhookEndpointDto } from './dto/webhook.dto.js';

/** A new endpoint: its signing secret (v1, shown only here) or its public key (v1a: the private key is never shown). */
export type CreatedEndpoint = { endpoint: WebhookEndpointDto } & (
  { secret: string; publicKey?: never } | { publicKey: string; secret?: never }
);

/**
 * A rotation's result: the new signing secret (v1), shown only here, or the new public key (v1a: the private key is
 * never shown); and until when the replaced one signs too (null when the overlap is zero).
 */
export type RotatedSecret = { id: string; previous_secret_expires_at: string | null } & (
  { secret: string; public_key?: never } | { public_key: string; secret?: never }
);
