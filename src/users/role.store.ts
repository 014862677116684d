import type { DocumentType, ReturnModelType } from '@typegoose/typegoose';
import { trusted } from 'mongoose';
import type { TenantFilter } from '../auth/index.js';
import { countRecords, findPage, type Page } from '../shared/index.js';
import type { CreateRoleArgs } from './role.inputs.js';
import { Role, RoleModel } from './role.model.js';

/** A custom role as read for its grants: lean, only what the permission tests need. */
export interface StoredRoleGrants {
  id: string;
  name: string;
  permissions: string[];
}

/** The reads and writes of custom roles (records); the rules are RoleService's. */
export class RoleRecords {
  constructor(private readonly model: ReturnModelType<typeof Role> = RoleModel) {}

  /** A page of the custom roles in `scope`, in id order. */
  page(scope: TenantFilter, args: { limit: number; cursor?: string | null }): Promise<Page<DocumentType<Role>>> {
    return findPage(this.model, { ...scope }, args);
  }

  /** How many custom roles `scope` holds (a list's totalCount), within the list read time limit. */
  count(scope: TenantFilter): Promise<number> {
    return countRecords(this.model, { ...scope });
  }

  async anyIn(scope: TenantFilter): Promise<boolean> {
    return (await this.model.exists({ ...scope })) !== null;
  }

  /** A duplicate name in the tenant is the unique index's 11000, left to the caller. */
  create(role: Pick<CreateRoleArgs, 'name' | 'permissions'> & { description: string | null; tenant_id: string }): Promise<DocumentType<Role>> {
    return this.model.create(role);
  }

  /** The custom roles of `tenantId` among `ids` (ids of no such role are left out). */
  async ofTenant(tenantId: string | null, ids: readonly string[]): Promise<StoredRoleGrants[]> {
    if (ids.length === 0) return [];
    const roles = await this.model.find({ _id: trusted({ $in: ids }), tenant_id: tenantId }).lean();
    return roles.map((role) => ({ id: String(role._id), name: role.name, permissions: role.permissions }));
  }
}
