import jwt from 'jsonwebtoken';
import type { JwtSettings } from '../../src/auth/jwt.js';

/**
 * Access tokens that the service must refuse, each wrong in one way, built
 * from a valid subject. Shared by the unit tests of jwt.ts and the HTTP tests.
 */
export interface TokenSubject {
  sub: string;
  tenant: string | null;
  roles: string[];
  /** The `ver` claim (token version); omitted when undefined, which reads as version 0. */
  ver?: number;
}

const now = () => Math.floor(Date.now() / 1000);

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function signed(settings: JwtSettings, subject: TokenSubject, claims: Record<string, unknown> = {}, secret = settings.secret) {
  const payload = {
    sub: subject.sub,
    tenant: subject.tenant,
    roles: subject.roles,
    ...(subject.ver === undefined ? {} : { ver: subject.ver }),
    iss: settings.issuer,
    aud: settings.audience,
    iat: now(),
    exp: now() + 600,
    ...claims,
  };
  return jwt.sign(payload, secret, { algorithm: 'HS256' });
}

export function refusedTokens(settings: JwtSettings, subject: TokenSubject): Record<string, string> {
  const valid = signed(settings, subject);
  const [header, , signature] = valid.split('.');
  const withoutExp = { sub: subject.sub, tenant: subject.tenant, roles: subject.roles, iss: settings.issuer, aud: settings.audience };
  return {
    'alg none': `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ ...withoutExp, exp: now() + 600 })}.`,
    'signed with another secret': signed(settings, subject, {}, 'another-secret-that-is-long-enough-000'),
    expired: signed(settings, subject, { iat: now() - 7200, exp: now() - 3600 }),
    'not yet valid (nbf)': signed(settings, subject, { nbf: now() + 3600 }),
    'wrong issuer': signed(settings, subject, { iss: 'someone-else' }),
    'wrong audience': signed(settings, subject, { aud: 'another-service' }),
    'tampered payload': `${header}.${base64url({ ...withoutExp, roles: ['admin', 'elevated'], exp: now() + 600 })}.${signature}`,
    'without expiry': jwt.sign({ ...withoutExp }, settings.secret, { algorithm: 'HS256' }),
    'signed with HS512': jwt.sign({ ...withoutExp, exp: now() + 600 }, settings.secret, { algorithm: 'HS512' }),
    'not a JWT': 'not-a-valid-credential',
    'with a non-integer ver': signed(settings, subject, { ver: 0.5 }),
    'with a string ver': signed(settings, subject, { ver: '0' }),
    'with a null ver': signed(settings, subject, { ver: null }),
  };
}

/** A valid token for any subject (the user need not exist). */
export function validToken(settings: JwtSettings, subject: TokenSubject): string {
  return signed(settings, subject);
}
