import type { DocumentType, ReturnModelType } from '@typegoose/typegoose';
import { trusted, type Types } from 'mongoose';
import type { TenantFilter } from '../auth/index.js';
import { undoingStamp } from '../events/index.js';
import { createdBetween, findPage, listReadTimeLimit, orStale, type Page, storedVersion, toObjectId, versionCondition } from '../shared/index.js';
import type { UsersArgs } from './user.inputs.js';
import { forgetCachedAccounts } from './account-cache.js';
import { LIVE_USER, User, UserModel, UserStatus } from './user.model.js';
import { escapeRegExp, searchConditions, searchKeysOf } from './user-search.js';

export type UserDocument = DocumentType<User>;

/** The fields of the user as stored, read before an update. */
export type StoredUser = NonNullable<Awaited<ReturnType<UserRecords['read']>>>;

/** Fields the search keys are made of: setting any of them sets the keys again. */
const SEARCHED_FIELDS = ['email', 'firstName', 'lastName'];

/**
 * The reads and writes of users: filters, the search keys kept beside the
 * searched fields (user-search.ts), the read time limit. The rules are
 * UserService's; every read and write here takes the tenant scope it gave.
 */
export class UserRecords {
  constructor(private readonly model: ReturnModelType<typeof User> = UserModel) {}

  list(scope: TenantFilter, args: UsersArgs): Promise<Page<UserDocument>> {
    const filter: Record<string, unknown> = { ...scope, ...LIVE_USER };
    if (args.email) filter.email = trusted({ $regex: `^${escapeRegExp(args.email)}$`, $options: 'i' });
    if (args.role) filter.roles = args.role;
    // Every condition must hold; a search's first word bounds the read through its index (user-search.ts).
    const all: Array<Record<string, unknown>> = args.search ? searchConditions(args.search) : [];
    if (args.createdAfter || args.createdBefore) all.push(createdBetween(args.createdAfter, args.createdBefore));
    if (all.length > 0) filter.$and = all;
    // A filter no index bounds (dates, email) may read the whole tenant: bounded in time, then 503.
    return findPage(this.model, filter, args, { maxTimeMS: listReadTimeLimit() });
  }

  async find(scope: TenantFilter, id: string): Promise<UserDocument | null> {
    return this.model.findOne({ _id: toObjectId(id), ...scope, ...LIVE_USER });
  }

  /** The stored fields alone (no document): what an update decides on. */
  read(scope: TenantFilter, id: string) {
    return this.model.findOne({ _id: toObjectId(id), ...scope, ...LIVE_USER }).lean();
  }

  /** A duplicate email in the tenant is the unique index's 11000 (409 naming `email`). */
  create(fields: Record<string, unknown>): Promise<UserDocument> {
    return this.model.create(fields);
  }

  /**
   * Sets `set` on the user read as `current`, with its search keys when a
   * searched field changes; `endTokens` raises `tokenVersion`, which ends
   * every token issued before. Null when the user is gone meanwhile.
   */
  async update(scope: TenantFilter, current: StoredUser, set: Record<string, unknown>, { endTokens }: { endTokens: boolean }): Promise<UserDocument | null> {
    if (SEARCHED_FIELDS.some((field) => set[field] !== undefined)) set.searchKeys = searchKeysOf({ ...current, ...set });
    const update: Record<string, unknown> = { $set: set };
    if (endTokens) update.$inc = { tokenVersion: 1 };
    const updated = await orStale(
      await this.model.findOneAndUpdate({ _id: current._id, ...scope, ...LIVE_USER, ...versionCondition() }, update, { returnDocument: 'after', runValidators: true }),
      () => storedVersion(this.model.collection, { _id: current._id, ...scope }),
    );
    if (updated && set.searchKeys !== undefined) await this.keepSearchKeysInStep(updated);
    return updated;
  }

  // Status: disable, enable, delete (UserService.disable, .enable, .delete).

  /**
   * Disables the live user while it is not disabled (and a REST If-Match
   * holds), raising `tokenVersion` in the same write: every token and session
   * issued before ends. Null when it is disabled already, or gone.
   */
  disable(scope: TenantFilter, id: Types.ObjectId, reason: string | null, updatedBy: string): Promise<UserDocument | null> {
    return this.writeStatus(
      { _id: id, ...scope, ...LIVE_USER, disabledAt: null },
      { $set: { status: UserStatus.disabled, disabledAt: new Date(), disabledReason: reason, updatedBy }, $inc: { tokenVersion: 1 } },
    );
  }

  /** Enables the live user while it is disabled; tokens stay ended (the version is not lowered). Null when it is not disabled, or gone. */
  enable(scope: TenantFilter, id: Types.ObjectId, updatedBy: string): Promise<UserDocument | null> {
    return this.writeStatus(
      { _id: id, ...scope, ...LIVE_USER, status: UserStatus.disabled },
      { $set: { status: UserStatus.active, disabledAt: null, disabledReason: null, updatedBy } },
    );
  }

  /** Marks the live user deleted (the record stays), raising `tokenVersion`. Null when it is deleted already, or gone. */
  markDeleted(scope: TenantFilter, id: Types.ObjectId, updatedBy: string): Promise<UserDocument | null> {
    return this.writeStatus(
      { _id: id, ...scope, ...LIVE_USER },
      { $set: { status: UserStatus.deleted, deletedAt: new Date(), updatedBy }, $inc: { tokenVersion: 1 } },
    );
  }

  /**
   * Puts back the status fields a disable or delete of `before` changed, and
   * the token version it raised (no token can have been issued under the
   * raised one: the account was refused meanwhile), while the record is as
   * `changed` left it: the undoing of a change that left no active platform
   * administrator (UserService.assertPlatformAdminLeft).
   */
  async restoreStatus(before: StoredUser, changed: UserDocument): Promise<boolean> {
    // strict: false lets the stamp's $pull (a field no schema declares) through mongoose's casting.
    const undo = await undoingStamp((unstamp) =>
      this.model.updateOne(
        { _id: before._id, tokenVersion: changed.tokenVersion, status: changed.status },
        {
          $set: {
            status: before.status ?? UserStatus.active,
            disabledAt: before.disabledAt ?? null,
            disabledReason: before.disabledReason ?? null,
            deletedAt: before.deletedAt ?? null,
            updatedBy: before.updatedBy ?? null,
          },
          $inc: { tokenVersion: -1 },
          ...unstamp,
        },
        { strict: false },
      ),
    );
    // Nothing matched: the record moved meanwhile and the change stands (the caller must say so).
    return undo.matchedCount === 1;
  }

  /** Undoes a roles change while the record still holds what it wrote; false when it moved meanwhile. */
  async restoreRoles(before: StoredUser, changed: UserDocument): Promise<boolean> {
    const undo = await undoingStamp((unstamp) =>
      this.model.updateOne(
        { _id: before._id, updatedAt: changed.updatedAt },
        { $set: { roles: [...(before.roles ?? [])], updatedBy: before.updatedBy ?? null }, ...unstamp },
        { strict: false },
      ),
    );
    return undo.matchedCount === 1;
  }

  /** How many platform administrators (no tenant, built-in admin) are active (neither disabled nor deleted), `except` one. */
  countActivePlatformAdmins(except?: Types.ObjectId): Promise<number> {
    const filter: Record<string, unknown> = { tenant_id: null, roles: 'admin', ...LIVE_USER, disabledAt: null };
    if (except) filter._id = trusted({ $ne: except });
    return this.model.countDocuments(filter).exec();
  }

  /** A status write: conditional, through the model (this process's account cache forgets at once), under a REST If-Match. */
  private async writeStatus(filter: { _id: Types.ObjectId } & Record<string, unknown>, update: Record<string, unknown>): Promise<UserDocument | null> {
    return orStale(
      await this.model.findOneAndUpdate({ ...filter, ...versionCondition() }, update, { returnDocument: 'after' }),
      () => storedVersion(this.model.collection, { _id: filter._id, ...LIVE_USER }),
    );
  }

  /** The stored password hash (which reads leave out); null when there is no such user in the scope. */
  async passwordHashOf(scope: TenantFilter, id: string): Promise<string | null> {
    const user = await this.model.findOne({ _id: toObjectId(id), ...scope, ...LIVE_USER }, { passwordHash: 1 }).select('+passwordHash').lean();
    return user?.passwordHash ?? null;
  }

  /**
   * The keys were computed from the record as read before the write: an
   * update of another of the searched fields landing in between (one sets
   * the email, the other the name) would leave keys of neither's state. The
   * record after the write holds both changes; when its keys are not its
   * fields', they are set again, on the condition that those fields are still
   * as seen (else the later writer's own check sets them).
   */
  private async keepSearchKeysInStep(updated: UserDocument): Promise<void> {
    const keys = searchKeysOf(updated);
    if (sameMembers(keys, updated.searchKeys ?? [])) return;
    const asSeen = { email: updated.email, firstName: updated.firstName ?? null, lastName: updated.lastName ?? null };
    await this.model.updateOne({ _id: updated._id, ...asSeen }, { $set: { searchKeys: keys } }, { timestamps: false });
    updated.searchKeys = keys;
  }

  /**
   * Sets the password of a user who may still sign in (not disabled or
   * deleted: a record without `status` is active) and raises `tokenVersion` in
   * the same write, which ends every token and session issued before it, on
   * the condition that the version is still `tokenVersion` (a password ticket
   * made under it: any end of the user's tokens since spends the ticket). Null
   * when there is no such user, or the version moved. On the collection, so the filter names `status`
   * whether or not the model declares it yet; this instance's account cache is
   * told at once, as a write through the model does.
   */
  async setPasswordEndingSessions(id: string, passwordHash: string, tokenVersion: number): Promise<SignInOf | null> {
    // A record from before the field has no tokenVersion: it reads as 0.
    const version = tokenVersion === 0 ? { tokenVersion: { $in: [0, null] } } : { tokenVersion };
    const updated = await this.model.collection.findOneAndUpdate(
      { _id: toObjectId(id), status: { $nin: ['disabled', 'deleted'] }, ...version },
      { $set: { passwordHash, updatedBy: id, updatedAt: new Date() }, $inc: { tokenVersion: 1 } },
      { returnDocument: 'after', projection: { email: 1, tenant_id: 1 } },
    );
    forgetCachedAccounts();
    return updated ? { email: updated.email as string, tenant_id: (updated.tenant_id as string | null) ?? null } : null;
  }
}

/** A user's sign-in as a redeemed password ticket answers it. */
export interface SignInOf {
  email: string;
  tenant_id: string | null;
}

/** The same ids or keys, in any order (a stored list holds each once, as the input rule does). */
export function sameMembers(given: readonly string[], held: readonly string[]): boolean {
  const heldSet = new Set(held);
  return given.length === heldSet.size && given.every((role) => heldSet.has(role));
}

/**
 * The writes and reads of a user's credentials in person and of their
 * sessions' end (the users area's session service, session.service.ts).
 */
export class UserCredentialRecords {
  constructor(private readonly model: ReturnModelType<typeof User> = UserModel) {}

  /** The user's token version; null when there is no such user in the scope. */
  async tokenVersion(scope: TenantFilter, id: string): Promise<number | null> {
    const user = await this.model.findOne({ _id: toObjectId(id), ...scope, ...LIVE_USER }, { tokenVersion: 1 }).lean();
    return user ? (user.tokenVersion ?? 0) : null;
  }

  /** The user's token version, tenant and roles (the hold rule for ending their sessions); null when there is no such user in the scope. */
  async sessionHolder(scope: TenantFilter, id: string): Promise<{ tokenVersion: number; tenantId: string | null; roles: string[] } | null> {
    const user = await this.model.findOne({ _id: toObjectId(id), ...scope, ...LIVE_USER }, { tokenVersion: 1, tenant_id: 1, roles: 1 }).lean();
    return user ? { tokenVersion: user.tokenVersion ?? 0, tenantId: user.tenant_id ?? null, roles: [...(user.roles ?? [])] } : null;
  }

  /** The stored fields with the password hash (which reads leave out), or null. */
  readWithPasswordHash(scope: TenantFilter, id: string) {
    return this.model.findOne({ _id: toObjectId(id), ...scope, ...LIVE_USER }).select('+passwordHash').lean();
  }

  /**
   * Sets a new password hash and raises `tokenVersion` (every token and
   * session issued before ends), only while the user is active and still at
   * `tokenVersion` (the one the caller's token was issued under): a disable or
   * an end of every session landing meanwhile wins. The user after, or null
   * when gone, disabled or moved on.
   */
  setPassword(scope: TenantFilter, id: string, passwordHash: string, updatedBy: string, tokenVersion: number) {
    // A record from before the field has no tokenVersion: it reads as 0.
    const version = tokenVersion === 0 ? { tokenVersion: trusted({ $in: [0, null] }) } : { tokenVersion };
    return this.model
      .findOneAndUpdate(
        { _id: toObjectId(id), ...scope, ...LIVE_USER, status: trusted({ $nin: [UserStatus.disabled, UserStatus.deleted] }), ...version },
        { $set: { passwordHash, updatedBy }, $inc: { tokenVersion: 1 } },
        { returnDocument: 'after' },
      )
      .lean();
  }

  /**
   * Raises `tokenVersion` alone: every access token and session of the user
   * ends. Under the client's If-Match (a DELETE of `/users/{id}/sessions`);
   * the user after, or null when gone.
   */
  async endTokens(scope: TenantFilter, id: string) {
    const filter = { _id: toObjectId(id), ...scope, ...LIVE_USER };
    return orStale(
      await this.model.findOneAndUpdate({ ...filter, ...versionCondition() }, { $inc: { tokenVersion: 1 } }, { returnDocument: 'after' }).lean(),
      () => storedVersion(this.model.collection, filter),
    );
  }
}
