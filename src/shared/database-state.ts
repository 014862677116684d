/**
 * Whether the database takes writes: the embedded engine stops taking them
 * when its disk is full (every write is then answered 507, reads still are),
 * until the service restarts. `/readyz` says so.
 */
let readOnlyReason: string | undefined;

export function markDatabaseReadOnly(reason: string): void {
  readOnlyReason = reason;
}

/** Why the database takes no writes, or undefined while it does. */
export function databaseReadOnlyReason(): string | undefined {
  return readOnlyReason;
}
