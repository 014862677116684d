import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from '../shared/index.js';

/**
 * Signing secrets: `whsec_` + base64 of 32 random bytes (Standard
 * Webhooks). The service must sign with it later, so it is stored, sealed
 * with AES-256-GCM under a key derived (HKDF-SHA-256) from JWT_SECRET under
 * this label alone: the database alone does not give it away. Shown once.
 */
const KEY_LABEL = 'webhook-signing-secret';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The bytes an HMAC is keyed with: the base64 after `whsec_`. */
export function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
}

/** The last key derived: every delivery opens its endpoint's secret, and HKDF is most of that cost. */
let derived: { jwtSecret: string; key: Buffer } | null = null;

function sealingKey(jwtSecret: string): Buffer {
  if (derived?.jwtSecret !== jwtSecret) derived = { jwtSecret, key: Buffer.from(hkdfSync('sha256', jwtSecret, Buffer.alloc(0), KEY_LABEL, 32)) };
  return derived.key;
}

/** `v1.<base64url iv|tag|ciphertext>`. */
export function sealSecret(jwtSecret: string, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(jwtSecret), iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

/** The secret; null when it cannot be opened (JWT_SECRET changed since it was sealed, or the record was altered). */
export function openSecret(jwtSecret: string, sealed: string): string | null {
  if (!sealed.startsWith('v1.')) return null;
  const bytes = Buffer.from(sealed.slice(3), 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(jwtSecret), bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
