import { createHash, randomBytes } from 'node:crypto';

/** A one-time credential as issued: the secret, shown once, and the hash that is all a record keeps of it. */
export interface OpaqueSecret {
  secret: string;
  hash: string;
}

/**
 * A new opaque secret: `prefix` and 256 random bits as 43 base64url
 * characters. The prefix lets the log's redaction and secret scanners
 * recognise it (credential-shapes.ts).
 */
export function newOpaqueSecret(prefix: string): OpaqueSecret {
  const secret = `${prefix}${randomBytes(32).toString('base64url')}`;
  return { secret, hash: hashOpaqueSecret(secret) };
}

/** SHA-256 (hex) of the secret: what is stored and looked up. A high-entropy secret needs no slow hash. */
export function hashOpaqueSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
