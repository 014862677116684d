import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { AppConfig } from '../config.js';
import { errors } from '../errors/index.js';
import { refusedCredential } from './credential-refusal.js';

/** The one algorithm we sign with and the only one we accept (no `none`, no RS/HS confusion). */
const ALGORITHM = 'HS256';

export type JwtSettings = AppConfig['jwt'];

/** What an access token says about its holder. */
export interface AccessTokenClaims {
  /** User id. */
  sub: string;
  /** Tenant id; null for a platform administrator. */
  tenant: string | null;
  /** Role ids held when the token was issued. */
  roles: string[];
  /**
   * The account's token version when the token was issued (claim `ver`); a
   * password change raises it, which ends every older token. A token without
   * the claim is version 0.
   */
  ver: number;
  /**
   * The session the token was issued for (claim `sid`): signed in with
   * `login`, ended by logout or a refresh token's reuse. Absent on tokens the
   * CLI mints for scripts, which belong to no session.
   */
  sid?: string;
}

export interface SignedAccessToken {
  accessToken: string;
  tokenType: 'Bearer';
  /** Seconds until the token expires. */
  expiresIn: number;
}

export function signAccessToken(settings: JwtSettings, claims: AccessTokenClaims): SignedAccessToken {
  const payload = { tenant: claims.tenant, roles: claims.roles, ver: claims.ver, ...(claims.sid ? { sid: claims.sid } : {}) };
  const accessToken = jwt.sign(payload, signingKey(settings.secret), {
    algorithm: ALGORITHM,
    subject: claims.sub,
    issuer: settings.issuer,
    audience: settings.audience,
    expiresIn: settings.expiresInSeconds,
  });
  return { accessToken, tokenType: 'Bearer', expiresIn: settings.expiresInSeconds };
}

/**
 * Verifies signature, algorithm, issuer, audience, expiry (required) and
 * not-before; any failure is the same 401, the reason only in the message.
 */
export function verifyAccessToken(settings: JwtSettings, token: string): AccessTokenClaims {
  const verified = verifiedTokens.get(token);
  if (verified && verified.settings === settingsKey(settings) && Math.floor(Date.now() / 1000) < verified.exp) return verified.claims;
  return verifyFully(settings, token);
}

/**
 * Tokens this process has verified, with their claims, so a client's next
 * requests skip the HMAC and the decoding (about 3% of a REST read's CPU).
 * A token is its own key: the same bytes under the same secret, issuer and
 * audience verify the same way until `exp`, which is checked on every use
 * as jsonwebtoken checks it. Revocation never depended on this step (token
 * version and roles come from the account). Bounded: the oldest go first.
 */
const verifiedTokens = new Map<string, { settings: string; exp: number; claims: AccessTokenClaims }>();
const MAX_VERIFIED_TOKENS = 10_000;

const settingsKey = (settings: JwtSettings): string => `${settings.secret}\n${settings.issuer}\n${settings.audience}`;

function verifyFully(settings: JwtSettings, token: string): AccessTokenClaims {
  let payload: string | jwt.JwtPayload;
  try {
    payload = jwt.verify(token, signingKey(settings.secret), {
      algorithms: [ALGORITHM],
      issuer: settings.issuer,
      audience: settings.audience,
    });
  } catch (err) {
    const [reason, message] = describeJwtFailure(err);
    throw refusedCredential('jwt', reason, errors.unauthenticated(message));
  }
  if (typeof payload === 'string' || typeof payload.exp !== 'number') {
    // jsonwebtoken only checks `exp` when present; we require it.
    throw refusedCredential('jwt', 'invalid', errors.unauthenticated('Invalid access token: no expiry'));
  }
  const { sub, tenant, roles, ver = 0, sid } = payload;
  const validRoles = Array.isArray(roles) && roles.every((role) => typeof role === 'string');
  const validVersion = Number.isSafeInteger(ver) && ver >= 0;
  const validSession = sid === undefined || (typeof sid === 'string' && sid.length > 0);
  if (typeof sub !== 'string' || !sub || !(tenant === null || typeof tenant === 'string') || !validRoles || !validVersion || !validSession) {
    throw refusedCredential('jwt', 'invalid', errors.unauthenticated('Invalid access token: malformed claims'));
  }
  const claims: AccessTokenClaims = Object.freeze({ sub, tenant, roles: Object.freeze([...roles]) as string[], ver, ...(sid === undefined ? {} : { sid: sid as string }) });
  if (verifiedTokens.size >= MAX_VERIFIED_TOKENS) verifiedTokens.delete(verifiedTokens.keys().next().value!);
  verifiedTokens.set(token, { settings: settingsKey(settings), exp: payload.exp, claims });
  return claims;
}

let lastKey: { secret: string; key: KeyObject } | undefined;

/**
 * The secret as a KeyObject, made once. Given a string, jsonwebtoken tries
 * to read it as a PEM public key on every call and builds the secret key
 * once that throws: about a tenth of a menu read's CPU when measured.
 */
function signingKey(secret: string): KeyObject {
  if (lastKey?.secret !== secret) lastKey = { secret, key: createSecretKey(Buffer.from(secret, 'utf8')) };
  return lastKey.key;
}

/** Why jsonwebtoken refused a token: the refusal's reason (metrics) and its words. */
function describeJwtFailure(err: unknown): [reason: string, message: string] {
  if (err instanceof jwt.TokenExpiredError) return ['expired', 'Access token expired'];
  if (err instanceof jwt.NotBeforeError) return ['not_yet_valid', 'Access token not yet valid'];
  return ['invalid', 'Invalid access token'];
}
