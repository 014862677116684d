import { createHash, randomBytes } from 'node:crypto';
import { REFRESH_TOKEN_PREFIX } from '../shared/index.js';

/**
 * Refresh tokens: `rt_<session id>_<secret>`, the secret 256 random bits
 * (base64url). The session id is public (it is the access token's `sid`);
 * it finds the session with one read by id. Only the SHA-256 of the whole
 * token is stored: 256 random bits need no slow hash.
 */
const SHAPE = new RegExp(`^${REFRESH_TOKEN_PREFIX}([0-9a-f]{24})_([A-Za-z0-9_-]{43})$`);

export interface ParsedRefreshToken {
  sessionId: string;
  hash: string;
}

/** A new refresh token of the session, and the hash to store. */
export function newRefreshToken(sessionId: string): { token: string; hash: string } {
  const token = `${REFRESH_TOKEN_PREFIX}${sessionId}_${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashRefreshToken(token) };
}

/** The session a token names and the token's hash; null when it is not a refresh token's shape. */
export function parseRefreshToken(token: string): ParsedRefreshToken | null {
  const match = SHAPE.exec(token);
  return match ? { sessionId: match[1], hash: hashRefreshToken(token) } : null;
}

function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
