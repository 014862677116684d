import jwt from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
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
