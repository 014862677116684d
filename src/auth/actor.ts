/**
 * The authenticated caller, as services see it: a plain value, never a
 * request. Resolvers receive it through the `@CurrentActor()` decorator and
 * pass it on; services decide with it.
 */
export interface Actor {
  /** The user id (for an API key: its creator's user id). */
  userId: string;
  /** The tenant; null for a platform administrator. */
  tenantId: string | null;
  /** Effective permissions (`<area>:<action>`, or `*`). */
  permissions: ReadonlySet<string>;
  /** Role ids held (users); empty for API keys. */
  roles: readonly string[];
  /** How the caller authenticated. */
  via: { kind: 'jwt' } | { kind: 'api-key'; apiKeyId: string; keyId: string };
}

export function hasPermission(actor: Actor, permission: string): boolean {
  return actor.permissions.has('*') || actor.permissions.has(permission);
}

/** A platform administrator holds `*` and belongs to no tenant. */
export function isPlatformAdmin(actor: Actor): boolean {
  return actor.tenantId === null && actor.permissions.has('*');
}
