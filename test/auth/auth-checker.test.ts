import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/auth/actor.js';
import { authChecker } from '../../src/auth/auth-checker.js';
import { AppError, errors } from '../../src/errors/index.js';
import type { AppContext } from '../../src/auth/context.js';

/** `@Authorized(...)`: who passes, and what the refusals say. */

function actor(permissions: string[]): Actor {
  return { userId: 'u1', tenantId: 't1', roles: [], permissions: new Set(permissions), via: { kind: 'jwt' } };
}

function check(context: Partial<AppContext>, required: string[]): unknown {
  try {
    return authChecker({ context: { actor: null, ...context } as AppContext, root: {}, args: {}, info: {} as never }, required);
  } catch (err) {
    return err;
  }
}

function refusal(result: unknown) {
  return result instanceof AppError ? { code: result.code, message: result.message, headers: result.headers } : result;
}

describe('the auth checker', () => {
  it('lets a caller holding the permission through', () => {
    expect(check({ actor: actor(['menus:write']) }, ['menus:write'])).toBe(true);
  });

  it('lets a holder of * through any permission', () => {
    expect(check({ actor: actor(['*']) }, ['menus:delete', 'users:create'])).toBe(true);
  });

  it('lets any authenticated caller through @Authorized() without permissions', () => {
    expect(check({ actor: actor([]) }, [])).toBe(true);
  });

  it('refuses a caller without credential with 401 and WWW-Authenticate: Bearer', () => {
    expect(refusal(check({}, []))).toEqual({
      code: 'UNAUTHENTICATED',
      message: 'Authentication required',
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  });

  it('refuses a caller lacking the permission with 403 naming it', () => {
    expect(refusal(check({ actor: actor(['menus:read']) }, ['menus:write']))).toEqual({
      code: 'FORBIDDEN',
      message: "You do not have the permission 'menus:write'",
      headers: {},
    });
  });

  it('names only the permissions that are missing', () => {
    expect(refusal(check({ actor: actor(['menus:read']) }, ['menus:read', 'menus:delete']))).toMatchObject({
      message: "You do not have the permission 'menus:delete'",
    });
  });

  it('throws the refused credential\'s own error rather than a generic 401', () => {
    const tooFast = errors.rateLimited(30);
    expect(check({ credentialError: tooFast }, [])).toBe(tooFast);
  });
});
