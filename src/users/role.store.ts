import type { DocumentType, ReturnModelType } from '@typegoose/typegoose';
import { trusted, type Types } from 'mongoose';
import type { TenantFilter } from '../auth/index.js';
import { undoingStamp } from '../events/index.js';
import { countRecords, findPage, orStale, storedVersion, toObjectId, type Page, versionCondition } from '../shared/index.js';
import { forgetCachedAccounts } from './account-cache.js';
import type { CreateRoleArgs } from './role.inputs.js';
import { Role, RoleModel } from './role.model.js';
import { UserModel } from './user.model.js';

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

  /** The custom role `id` of the scope, lean; null when there is none. */
  async find(scope: TenantFilter, id: string): Promise<StoredRole | null> {
    return (await this.model.findOne({ _id: toObjectId(id), ...scope }).lean()) as StoredRole | null;
  }

  /**
   * Sets `set` on the role read as `current`, on the condition that its
   * permissions are still the ones the caller was checked against (and, under
   * an If-Match, its version): null when not (412 for a stale version). Through
   * the model, so this instance's role cache forgets at once (account-cache.ts).
   */
  async update(scope: TenantFilter, current: StoredRole, set: Record<string, unknown>): Promise<StoredRole | null> {
    const filter = { _id: current._id, ...scope, permissions: current.permissions, ...versionCondition() };
    return orStale(
      (await this.model.findOneAndUpdate(filter, { $set: set }, { returnDocument: 'after', runValidators: true }).lean()) as StoredRole | null,
      () => storedVersion(this.model.collection, { _id: current._id, ...scope }),
    );
  }

  /**
   * Deletes the role read as `current`, on the condition that its permissions
   * are still the ones the caller was checked against (and, under an If-Match,
   * its version: else 412); null when not, or when it is gone.
   */
  async remove(scope: TenantFilter, current: StoredRole): Promise<StoredRole | null> {
    const filter = { _id: current._id, ...scope, permissions: current.permissions, ...versionCondition() };
    return orStale(
      (await this.model.findOneAndDelete(filter).lean()) as StoredRole | null,
      () => storedVersion(this.model.collection, { _id: current._id, ...scope }),
    );
  }

  /**
   * Puts a deleted role back as it was (same id): a user was given it while
   * it was being deleted. A role of its name created meanwhile is the unique
   * index's 11000, left to the caller.
   */
  async restore(role: StoredRole): Promise<void> {
    // Unstamped: the role back as it was is no evidence of the refused delete.
    await undoingStamp(() => this.model.collection.insertOne(role as never));
    forgetCachedAccounts();
  }

  /**
   * How many users of the tenant hold the role, deleted users (status
   * `deleted`, when the users area keeps them) left out. On the collection:
   * the filter names `status` whether or not the model declares it yet.
   */
  countHolders(tenantId: string | null, roleId: string): Promise<number> {
    return UserModel.collection.countDocuments({ tenant_id: tenantId, roles: roleId, status: { $ne: 'deleted' } });
  }
}

/** A custom role as stored, read before it is changed or deleted. */
export type StoredRole = Role & { _id: Types.ObjectId; updatedAt?: Date | null };
