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
  /**
   * How the caller authenticated; an access token names its session (`sid`)
   * when it was issued for one, and the account's token version it was
   * issued under (`ver`), so a write can hold only while that is current.
   */
  via: { kind: 'jwt'; sessionId?: string; tokenVersion?: number } | { kind: 'api-key'; apiKeyId: string; keyId: string; platform: boolean; rateLimit: RateLimitState; bounds: ApiKeyBounds };
}

/**
 * The limits of the API key a caller authenticated with, as stored: a key
 * it creates or rolls must stay within them (the api-keys area decides how).
 */
export interface ApiKeyBounds {
  /** null: the key never expires. */
  expiresAt: Date | null;
  /** Requests per hour. */
  rateLimit: number;
  /** Empty: any address. */
  allowedIPs: readonly string[];
  /** Empty: any origin (or none). */
  allowedOrigins: readonly string[];
}

/** Where an API key stands in its hourly window after this request. */
export interface RateLimitState {
  /** Requests per window. */
  limit: number;
  /** Requests left in the window after this one (0 when refused). */
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  windowSeconds: number;
}

/**
 * Whether the caller is this user in person (an access token). Rules that
 * exempt users from a permission for their own record or their own keys
 * apply only then: an API key acts as its creator only within its scopes.
 */
export function isUserInPerson(actor: Actor, userId: string | null | undefined): boolean {
  return actor.via.kind === 'jwt' && actor.userId === userId;
}

export function hasPermission(actor: Pick<Actor, 'permissions'>, permission: string): boolean {
  return actor.permissions.has('*') || actor.permissions.has(permission);
}

/**
 * A platform administrator holds `*` and belongs to no tenant; an API key
 * created by one acts outside every tenant too, with its scopes.
 */
export function isPlatformAdmin(actor: Actor): boolean {
  if (actor.tenantId !== null) return false;
  return actor.via.kind === 'api-key' ? actor.via.platform : actor.permissions.has('*');
}
