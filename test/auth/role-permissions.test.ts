import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionsOfRoles as permissionsOfRolesIn } from '../../src/auth/index.js';
import { RoleModel, userAccountStore } from '../../src/users/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** What a user's role ids grant: built-in roles from code, custom roles from their tenant's records. */

let app: TestApp;
let auditorId: string;
beforeAll(async () => {
  app = await startTestApp();
  const auditor = await RoleModel.create({ name: 'auditor', permissions: ['api-keys:read', 'users:read'], tenant_id: 'tenant-r' });
  auditorId = String(auditor._id);
});
afterAll(() => app?.close());

const permissionsOfRoles = (tenantId: string, roleIds: string[]) => permissionsOfRolesIn(userAccountStore, tenantId, roleIds);
const sorted = (set: Set<string>) => [...set].sort();

describe('permissions of roles', () => {
  it('admin grants every permission (*)', async () => {
    expect(sorted(await permissionsOfRoles('tenant-r', ['admin']))).toEqual(['*']);
  });

  it('member grants reading and creating API keys', async () => {
    expect(sorted(await permissionsOfRoles('tenant-r', ['member']))).toEqual([
      'api-keys:create',
      'menus:read',
      'roles:read',
      'schemas:read',
      'users:read',
    ]);
  });

  it('a custom role of the tenant grants its permissions', async () => {
    expect(sorted(await permissionsOfRoles('tenant-r', [auditorId]))).toEqual(['api-keys:read', 'users:read']);
  });

  it('a custom role of another tenant grants nothing', async () => {
    expect(sorted(await permissionsOfRoles('tenant-other', [auditorId]))).toEqual([]);
  });

  it('unknown role ids grant nothing', async () => {
    expect(sorted(await permissionsOfRoles('tenant-r', ['superuser', '0123456789abcdef01234567']))).toEqual([]);
  });

  it('several roles grant the union of their permissions', async () => {
    expect(sorted(await permissionsOfRoles('tenant-r', ['member', auditorId]))).toContain('api-keys:read');
  });
});
