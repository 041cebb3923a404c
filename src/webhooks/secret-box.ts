import { createCipheriv, createDecipheriv, generateKeyPairSync, randomBytes } from 'node:crypto';
import { PRIVATE_KEY_PREFIX, publicKeyText, type SignatureScheme } from './signing.js';

const VERSION = 'v1';

/** A new endpoint signing secret: `whsec_` + 32 random bytes, base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * A new ed25519 key pair for `v1a` signatures: the private key (`whsk_` + PKCS#8, base64), which is sealed like a
 * `whsec_` secret and never shown, and the public key (`whpk_` + its 32 raw bytes, base64), which is not secret.
 */
export function newSigningKeyPair(): { privateKey: string; publicKey: string } {
  const pair = generateKeyPairSync('ed25519');
  return {
    privateKey: `${PRIVATE_KEY_PREFIX}${pair.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64')}`,
    publicKey: publicKeyText(pair.publicKey),
  };
}

/** What a new endpoint or a rotation signs with: the text to seal, the public key (v1a) and the last 4 characters shown. */
export interface SigningMaterial {
  signature: SignatureScheme;
  /** Sealed at rest and never stored in plain: a `whsec_` secret (v1) or a `whsk_` private key (v1a). */
  secret: string;
  publicKey: string | null;
  /** secret_last4: of the secret (v1), or of the public key (v1a: nothing of the private key is ever shown). */
  last4: string;
}

export function newSigningMaterial(signature: SignatureScheme): SigningMaterial {
  if (signature === 'v1') {
    const secret = newSigningSecret();
    return { signature, secret, publicKey: null, last4: secret.slice(-4) };
  }
  const { privateKey, publicKey } = newSigningKeyPair();
  return { signature, secret: privateKey, publicKey, last4: publicKey.slice(-4) };
}

/**
 * AES-256-GCM for signing secrets at rest, keyed by WEBHOOK_SECRET_KEY. The
 * endpoint id is authenticated data, so a ciphertext copied onto another
 * endpoint row does not open.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
  }

  seal(plaintext: string, boundTo: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(boundTo, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  open(sealed: string, boundTo: string): string {
    const [version, payload] = sealed.split('.', 2);
    if (version !== VERSION || !payload) throw new Error('unknown secret format');
    const raw = Buffer.from(payload, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(boundTo, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
