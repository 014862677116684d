import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/auth/actor.js';
import { assertTenantScope, tenantForCreate, tenantScope } from '../../src/auth/tenant-scope.js';

function actor(tenantId: string | null): Actor {
  return { userId: 'u1', tenantId, permissions: new Set(['*']), roles: [], via: { kind: 'jwt' } };
}

describe('tenant scope', () => {
  it("confines a tenant member's queries to its tenant", () => {
    expect(tenantScope(actor('t1'))).toEqual({ tenant_id: 't1' });
  });

  it('leaves a platform caller unconfined', () => {
    expect(tenantScope(actor(null))).toEqual({});
  });

});

describe('the tenant of a new record', () => {
  it("is the member's own tenant when none is named", () => {
    expect(tenantForCreate(actor('t1'), undefined)).toBe('t1');
  });

  it('refuses a member naming another tenant with 403', () => {
    expect(() => tenantForCreate(actor('t1'), 't2')).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
  });

  it('is the tenant a platform caller names', () => {
    expect(tenantForCreate(actor(null), 't2')).toBe('t2');
  });

  it('must be named by a platform caller (400 on tenant_id)', () => {
    expect(() => tenantForCreate(actor(null), undefined)).toThrow(
      expect.objectContaining({ code: 'BAD_USER_INPUT', fieldErrors: [expect.objectContaining({ field: 'tenant_id', rule: 'required' })] }),
    );
  });
});

describe('a caller without a tenant who is no platform administrator', () => {
  const tenantless: Actor = { userId: 'u2', tenantId: null, permissions: new Set(['menus:read']), roles: ['member'], via: { kind: 'jwt' } };

  it('is refused, not widened to every tenant', () => {
    expect(() => tenantScope(tenantless)).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
  });

  it('fails the tenant-scope assertion, which members and platform callers pass', () => {
    expect(() => assertTenantScope(tenantless)).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    expect(() => assertTenantScope(actor('t1'))).not.toThrow();
    expect(() => assertTenantScope(actor(null))).not.toThrow();
  });


  it('cannot create records', () => {
    expect(() => tenantForCreate(tenantless, 't1')).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
  });
});
