import { AsyncLocalStorage } from 'node:async_hooks';
import { errors } from '../errors/index.js';

/**
 * A REST `If-Match` on a PATCH or DELETE (http/use-conditional-requests.ts): the version
 * (`updatedAt`) the client read. A store's write adds `versionCondition()`
 * to its filter, so the check and the write are one conditional write; a
 * write that matched nothing passes `orStale`, which tells a stale version
 * (412) from a record that is gone or not in that state (the store's own null).
 */
export interface WritePrecondition {
  updatedAt: Date;
}

const preconditions = new AsyncLocalStorage<WritePrecondition>();

/** Runs `work` (the rest of the request) under the client's precondition. */
export function withWritePrecondition<T>(precondition: WritePrecondition, work: () => T): T {
  return preconditions.run(precondition, work);
}

/** The filter part of a conditional write: `{updatedAt}` under an If-Match, else nothing. */
export function versionCondition(): { updatedAt?: Date } {
  const precondition = preconditions.getStore();
  return precondition ? { updatedAt: precondition.updatedAt } : {};
}

/**
 * `written`, unless the write matched nothing because the version is stale:
 * then 412. `currentVersion` reads the record's `updatedAt` now (undefined: no record).
 */
export async function orStale<T>(written: T | null, currentVersion: () => Promise<Date | null | undefined>): Promise<T | null> {
  const precondition = preconditions.getStore();
  if (written !== null || !precondition) return written;
  const version = await currentVersion();
  if (version && version.getTime() !== precondition.updatedAt.getTime()) throw errors.preconditionFailed();
  return null;
}

/** A record's stored `updatedAt` (its version), for `orStale`; undefined when there is no such record. */
export async function storedVersion(collection: { findOne(filter: object, options: object): Promise<{ updatedAt?: unknown } | null> }, filter: object) {
  const stored = await collection.findOne(filter, { projection: { updatedAt: 1 } });
  return stored ? ((stored.updatedAt as Date | undefined) ?? null) : undefined;
}

/**
 * 412 at once when a record read before the write is already of another
 * version: for an operation that may change other records, or none, before
 * or instead of its conditional write (revoking a revoked key still walks
 * the keys it made).
 */
export function assertVersion(updatedAt: Date | null | undefined): void {
  const precondition = preconditions.getStore();
  if (precondition && updatedAt?.getTime() !== precondition.updatedAt.getTime()) throw errors.preconditionFailed();
}
