import type { Schema } from 'mongoose';
import type { Account } from '../auth/index.js';
import { createShortLivedCache } from '../shared/index.js';

/**
 * How long a credential's account and role permissions are reused without a
 * database read. A role change, a password change (token version) or a
 * removal made through this process's models is seen by the next request
 * (the plugin below forgets everything); one made by another instance, within
 * this bound: its next read starts at most this long after the change.
 */
export const ACCOUNT_MAX_AGE_MS = 1000;

/** `findAccount` results by user id (null: no such user). */
export const cachedAccounts = createShortLivedCache<Account | null>({ maxAgeMs: ACCOUNT_MAX_AGE_MS });
/** `customRolePermissions` results by tenant and role ids. */
export const cachedRolePermissions = createShortLivedCache<string[]>({ maxAgeMs: ACCOUNT_MAX_AGE_MS });

/** Forgets every cached account and role: the next credential reads them from the database. */
export function forgetCachedAccounts(): void {
  cachedAccounts.clear();
  cachedRolePermissions.clear();
}

/** Mongoose's writing operations run on a document or as a query (`doc.updateOne()` and `Model.updateOne()`). */
const EITHER_WRITES = ['updateOne', 'deleteOne'] as const;
const QUERY_WRITES = ['updateMany', 'replaceOne', 'findOneAndUpdate', 'findOneAndReplace', 'deleteMany', 'findOneAndDelete'] as const;

/**
 * A schema plugin for the users and roles models: every write through the
 * model, once stored, forgets the cache, so the instance that made a change
 * answers by it at once. Writes on the native collection bypass it and are
 * seen within ACCOUNT_MAX_AGE_MS, like another instance's.
 */
export function forgetCachedAccountsOnWrite(schema: Schema): void {
  for (const operation of EITHER_WRITES) schema.post(operation, { document: true, query: true }, forgetCachedAccounts);
  for (const operation of QUERY_WRITES) schema.post(operation, forgetCachedAccounts);
  schema.post('save', forgetCachedAccounts);
  schema.post('insertMany', forgetCachedAccounts);
  schema.post('bulkWrite', forgetCachedAccounts);
}
