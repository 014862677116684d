import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { REFRESH_TOKEN_PREFIX } from '../shared/index.js';

/**
 * Refresh tokens: `rt_<session id>_<generation>_<tag><secret>`.
 * - session id: public (the access token's `sid`); finds the session by id.
 * - generation: counts the session's refreshes; the session stores its current one.
 * - tag: HMAC-SHA-256 of `<session id>|<generation>` under a key derived from
 *   JWT_SECRET, cut to 128 bits (22 base64url characters): proves the server
 *   issued that generation of that session, so an older generation presented
 *   again is reuse however many refreshes ago it was spent, without the
 *   session keeping a list, and nobody who merely knows the sid can forge one.
 * - secret: 256 random bits (43 base64url characters); only the SHA-256 of
 *   the whole token is stored, for the current generation only.
 */
const SHAPE = new RegExp(`^${REFRESH_TOKEN_PREFIX}([0-9a-f]{24})_(0|[1-9][0-9]{0,14})_([A-Za-z0-9_-]{22})([A-Za-z0-9_-]{43})$`);
const TAG_BYTES = 16;
const TAG_KEY_LABEL = 'refresh-token-tag';

export interface ParsedRefreshToken {
  sessionId: string;
  generation: number;
  hash: string;
}

/** Generation `generation` of the session's refresh token, and the hash to store. */
export function newRefreshToken(jwtSecret: string, sessionId: string, generation: number): { token: string; hash: string } {
  const token = `${REFRESH_TOKEN_PREFIX}${sessionId}_${generation}_${tag(jwtSecret, sessionId, generation).toString('base64url')}${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashRefreshToken(token) };
}

/**
 * The session and generation a token names and the token's hash; null when
 * it is not a refresh token's shape or its tag is not one this server issued.
 */
export function parseRefreshToken(jwtSecret: string, token: string): ParsedRefreshToken | null {
  const match = SHAPE.exec(token);
  if (!match) return null;
  const [, sessionId, generationText, tagText] = match;
  const generation = Number(generationText);
  const presented = Buffer.from(tagText, 'base64url');
  const expected = tag(jwtSecret, sessionId, generation);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return null;
  return { sessionId, generation, hash: hashRefreshToken(token) };
}

let lastKey: { secret: string; key: Buffer } | undefined;

/** The tag key: derived from JWT_SECRET with its own label, so no tag is ever a JWT signature. */
function tagKey(jwtSecret: string): Buffer {
  if (lastKey?.secret !== jwtSecret) lastKey = { secret: jwtSecret, key: createHmac('sha256', jwtSecret).update(TAG_KEY_LABEL).digest() };
  return lastKey.key;
}

function tag(jwtSecret: string, sessionId: string, generation: number): Buffer {
  return createHmac('sha256', tagKey(jwtSecret)).update(`${sessionId}|${generation}`).digest().subarray(0, TAG_BYTES);
}

function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
