import jwt from 'jsonwebtoken';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signAccessToken, verifyAccessToken } from '../../src/auth/jwt.js';
import { loadConfig } from '../../src/config.js';
import { AppError } from '../../src/errors/index.js';
import { refusedTokens, validToken } from '../support/tokens.js';

const settings = loadConfig({ NODE_ENV: 'test', JWT_SECRET: 's'.repeat(48), JWT_ISSUER: 'iss-a', JWT_AUDIENCE: 'aud-b' }).config.jwt;
const subject = { sub: '64b000000000000000000001', tenant: 'tenant-1', roles: ['member'], ver: 3 };

describe('signing access tokens', () => {
  const signedToken = signAccessToken(settings, subject);
  const decoded = jwt.decode(signedToken.accessToken, { complete: true })!;
  const payload = decoded.payload as jwt.JwtPayload;

  it('answers a Bearer token with its lifetime', () => {
    expect({ tokenType: signedToken.tokenType, expiresIn: signedToken.expiresIn }).toEqual({ tokenType: 'Bearer', expiresIn: 3600 });
  });

  it('signs with HS256', () => {
    expect(decoded.header.alg).toBe('HS256');
  });

  it('carries the user id as sub, the tenant, the roles and the token version as ver', () => {
    expect({ sub: payload.sub, tenant: payload.tenant, roles: payload.roles, ver: payload.ver }).toEqual(subject);
  });

  it('carries the issuer, the audience and an expiry one lifetime after issue', () => {
    expect({ iss: payload.iss, aud: payload.aud, lifetime: payload.exp! - payload.iat! }).toEqual({ iss: 'iss-a', aud: 'aud-b', lifetime: 3600 });
  });

  it('verifies back to the same claims', () => {
    expect(verifyAccessToken(settings, signedToken.accessToken)).toEqual(subject);
  });

  it('keeps a null tenant for a platform administrator', () => {
    const admin = { sub: subject.sub, tenant: null, roles: ['admin'], ver: 0 };
    expect(verifyAccessToken(settings, signAccessToken(settings, admin).accessToken)).toEqual(admin);
  });
});

describe('verifying access tokens', () => {
  for (const [problem, token] of Object.entries(refusedTokens(settings, subject))) {
    it(`refuses a token ${problem} with 401 UNAUTHENTICATED`, () => {
      let thrown: unknown;
      try {
        verifyAccessToken(settings, token);
      } catch (err) {
        thrown = err;
      }
      expect(thrown instanceof AppError ? [thrown.code, thrown.headers['WWW-Authenticate']] : thrown).toEqual(['UNAUTHENTICATED', 'Bearer']);
    });
  }

  it('reads a token without ver as version 0', () => {
    const { ver: _omitted, ...withoutVer } = subject;
    expect(verifyAccessToken(settings, validToken(settings, withoutVer))).toEqual({ ...withoutVer, ver: 0 });
  });

  it('reads an integer ver as the version', () => {
    expect(verifyAccessToken(settings, validToken(settings, { ...subject, ver: 12 })).ver).toBe(12);
  });

  it.each([
    ['a non-integer', 'with a non-integer ver'],
    ['a string', 'with a string ver'],
    ['a null', 'with a null ver'],
  ])('says a token with %s ver is malformed', (_kind, problem) => {
    expect(() => verifyAccessToken(settings, refusedTokens(settings, subject)[problem])).toThrow('Invalid access token: malformed claims');
  });

  it('says a token with a negative ver is malformed', () => {
    expect(() => verifyAccessToken(settings, validToken(settings, { ...subject, ver: -1 }))).toThrow('Invalid access token: malformed claims');
  });

  it('says when a token has expired', () => {
    expect(() => verifyAccessToken(settings, refusedTokens(settings, subject).expired)).toThrow('Access token expired');
  });
});

describe('a token verified before (kept by this process)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('verifies to the same claims again', () => {
    const token = signAccessToken(settings, subject).accessToken;
    expect([verifyAccessToken(settings, token), verifyAccessToken(settings, token)]).toEqual([subject, subject]);
  });

  it('is refused once it expires', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const token = signAccessToken(settings, subject).accessToken;
    verifyAccessToken(settings, token);
    vi.setSystemTime(Date.now() + (settings.expiresInSeconds + 1) * 1000);
    expect(() => verifyAccessToken(settings, token)).toThrow('Access token expired');
  });

  it('is refused in its last second, as jsonwebtoken refuses it (exp is exclusive)', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const token = signAccessToken(settings, subject).accessToken;
    const exp = (jwt.decode(token) as jwt.JwtPayload).exp!;
    verifyAccessToken(settings, token);
    vi.setSystemTime(exp * 1000);
    expect(() => verifyAccessToken(settings, token)).toThrow('Access token expired');
  });

  for (const [what, other] of Object.entries({
    'another secret': { ...settings, secret: 't'.repeat(48) },
    'another issuer': { ...settings, issuer: 'iss-other' },
    'another audience': { ...settings, audience: 'aud-other' },
  })) {
    it(`is refused under ${what}`, () => {
      const token = signAccessToken(settings, subject).accessToken;
      verifyAccessToken(settings, token);
      expect(() => verifyAccessToken(other, token)).toThrow('Invalid access token');
    });
  }

  it('answers claims that a caller cannot change for the next request', () => {
    const token = signAccessToken(settings, subject).accessToken;
    const claims = verifyAccessToken(settings, token);
    expect(() => (claims.roles as string[]).push('admin')).toThrow(TypeError);
    expect(verifyAccessToken(settings, token).roles).toEqual(['member']);
  });
});
