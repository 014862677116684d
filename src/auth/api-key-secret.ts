import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { API_KEY_CHECKSUM_LENGTH, API_KEY_ID_LENGTH, API_KEY_PREFIX, API_KEY_SECRET_LENGTH } from '../shared/index.js';

/**
 * The API key secret: `ak_<keyId>_<secret><checksum>`, all base62.
 * - `keyId` (12 characters) is the public part that finds the record;
 * - `secret` (43 characters, 256 bits of randomness) is never stored: only
 *   the SHA-256 of the whole string is (a high-entropy secret needs no slow hash);
 * - `checksum` (6 characters, CRC-32 of what precedes it) lets a mistyped or
 *   truncated key be refused without a database read, and lets secret
 *   scanners recognise a leaked key by its shape, as GitHub's tokens do.
 */
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// The format's lengths are shared with the log's redaction (shared/credential-shapes.ts).
const SECRET_PATTERN = new RegExp(
  `^${API_KEY_PREFIX}([0-9A-Za-z]{${API_KEY_ID_LENGTH}})_([0-9A-Za-z]{${API_KEY_SECRET_LENGTH}})([0-9A-Za-z]{${API_KEY_CHECKSUM_LENGTH}})$`,
);

export interface ParsedApiKeySecret {
  keyId: string;
  /** SHA-256 (hex) of the whole secret: what the record stores. */
  hash: string;
}

export interface NewApiKeySecret extends ParsedApiKeySecret {
  /** The full secret, shown to its owner once. */
  secret: string;
}

/** A new secret; `keyId` is kept when rolling a key (same record, new secret). */
export function generateApiKeySecret(keyId = randomBase62(API_KEY_ID_LENGTH)): NewApiKeySecret {
  const body = `${API_KEY_PREFIX}${keyId}_${randomBase62(API_KEY_SECRET_LENGTH)}`;
  const secret = body + checksumOf(body);
  return { secret, keyId, hash: hashApiKeySecret(secret) };
}

/** The key id and hash of a well-formed secret with a valid checksum; null otherwise (no database read needed). */
export function parseApiKeySecret(secret: string): ParsedApiKeySecret | null {
  const match = SECRET_PATTERN.exec(secret);
  if (!match) return null;
  const body = secret.slice(0, secret.length - API_KEY_CHECKSUM_LENGTH);
  if (checksumOf(body) !== match[3]) return null;
  return { keyId: match[1], hash: hashApiKeySecret(secret) };
}

export function hashApiKeySecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Constant-time comparison of two hex SHA-256 hashes. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

function checksumOf(body: string): string {
  return toBase62(crc32(body), API_KEY_CHECKSUM_LENGTH);
}

/** Uniform base62 characters by rejection sampling (no modulo bias). */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

function toBase62(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i += 1) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}
