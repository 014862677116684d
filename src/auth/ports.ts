/**
 * auth/'s ports: what sign-in and credentials need to read about users,
 * roles and API keys. auth/ declares them and the areas implement them
 * (src/users/account.store.ts, the api-keys area's credential store), so
 * the mechanism never imports the areas that use it.
 */
export interface Account {
  id: string;
  /** null: a platform administrator. */
  tenantId: string | null;
  roles: readonly string[];
  /** Raised by every password change: tokens issued under an older version are refused. */
  tokenVersion: number;
  /** Only an active account signs in or acts (account-status.ts); a deleted one is no account at all (null). */
  status: AccountStatus;
}

/** Where an account is in its life; a record stored before the field existed is active. */
export type AccountStatus = 'active' | 'disabled';

export interface LoginCandidate extends Account {
  passwordHash: string;
}

export interface AccountStore {
  /** The account an access token names, or null when it is gone (or deleted). */
  findAccount(id: string): Promise<Account | null>;
  /**
   * The one account a sign-in with this email (case-insensitively) checks the
   * password of, or null:
   * - `tenant` a string: the account of that tenant;
   * - `tenant` null: the platform account (no tenant);
   * - `tenant` undefined (not named): the platform account when there is one,
   *   else the only tenant account with the email when exactly one exists.
   * Deleted accounts are not candidates, nor counted as holding the email.
   * Reads a bounded number of records, whatever exists.
   */
  findLoginCandidate(email: string, tenant: string | null | undefined): Promise<LoginCandidate | null>;
  /** The permissions the tenant's custom roles with these ids grant (unknown ids grant nothing). */
  customRolePermissions(tenantId: string | null, roleIds: readonly string[]): Promise<string[]>;
}

/** One secret an API key accepts: the current one, or a rolled one until its grace period ends. */
export interface ApiKeySecretHash {
  /** SHA-256 (hex) of the secret. */
  hash: string;
  /** null: no end (the current secret). */
  validUntil: Date | null;
}

/** What the API-key credential needs to read about a key. */
export interface ApiKeyCredentialRecord {
  /** The record's `_id` (24 hex). */
  id: string;
  keyId: string;
  /** null: a platform administrator's key. */
  tenantId: string | null;
  /** The user who created the key: the key never acts beyond them. */
  createdBy: string;
  scopes: readonly string[];
  allowedOrigins: readonly string[];
  allowedIPs: readonly string[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  /** Set while the key is disabled (refused until enabled again); null or absent otherwise. */
  disabledAt?: Date | null;
  /** The key's name (verifyApiKey answers it). */
  name?: string;
  /** Requests per hour. */
  rateLimit: number;
  secrets: readonly ApiKeySecretHash[];
}

/** One accepted use of a key, as its usage log keeps it. */
export interface ApiKeyUse {
  apiKeyId: string;
  at: Date;
  ip: string;
  origin: string | null;
  method: string;
  path: string;
  /** The GraphQL operation name, when there was one. */
  operation: string | null;
  status: number;
  /**
   * Set when the credential refused the identified key (revoked, expired,
   * disabled: unauthorized; IP or origin: forbidden; past its limit:
   * rateLimited): counted in the hourly rollups only, not in usageCount or the log.
   */
  refusal?: 'unauthorized' | 'forbidden' | 'rateLimited';
  /** The operations the request reached (`Query.mealMenus`), for the key's scope report. */
  operations?: string[];
}

/** A counted use: the key as stored, and how many uses its current window holds with this one. */
export interface CountedApiKeyUse {
  key: ApiKeyCredentialRecord;
  usedInWindow: number;
  /** The store's own note of what served the use (opaque here): releaseUse gives the use back there. */
  servedBy?: unknown;
}

/**
 * What auth/ needs of API keys; the api-keys area implements it
 * (src/api-keys/api-key-credential.store.ts), as the users area implements AccountStore.
 */
export interface ApiKeyStore {
  /**
   * When the key `keyId` is live at `at` (not revoked, not expired, not disabled) and
   * accepts the secret whose hash is `secretHash` (the current secret, or a
   * rolled one within its grace period), count this use in the rate window
   * starting at `windowStart` (a new window starts from 1) and answer the key
   * with the window's count as this instance knows it; else null, counting
   * nothing. The count lives in the key's record and is never taken past the
   * limit across instances. A store may take a busy key's uses from it a few
   * at a time and serve them for up to a second (the api-keys area's grants):
   * a change made through this instance is honoured at once, one made by
   * another instance within that second.
   */
  countUse(keyId: string, secretHash: string, at: Date, windowStart: Date): Promise<CountedApiKeyUse | null>;
  /**
   * Gives back a use counted by `countUse` that was then refused (a caller
   * outside the key's allowed IPs or origins), so that such callers cannot
   * spend the key's hourly quota. No effect once the window has moved on.
   */
  releaseUse(use: CountedApiKeyUse, windowStart: Date): Promise<void>;
  /** The key, to say why a secret was refused (revoked, expired, disabled, unknown). */
  findByKeyId(keyId: string): Promise<ApiKeyCredentialRecord | null>;
  /** Appends the usage-log entries and raises each key's usageCount and lastUsedAt, in one batch. */
  recordUses(uses: readonly ApiKeyUse[]): Promise<void>;
}

/**
 * A change auth/ makes by itself (ending the session of a reused refresh
 * token) as an event of the outbox: the composition root implements it with
 * events/ (src/service.ts), so auth/ imports no event code.
 */
export interface ChangeEvents {
  /** Runs `change` as the event; it is one only when `change` answers true (something changed). */
  record(event: { type: string; userId: string; tenantId: string | null; target: { type: string; id: string } }, change: () => Promise<boolean>): Promise<boolean>;
}

/** No outbox (a service built without one): the change alone. */
export const NO_CHANGE_EVENTS: ChangeEvents = { record: (_event, change) => change() };

/**
 * The system events auth/ raises (issue 31); the composition root wires them
 * to the event log. Each call returns at once: a refusal never waits for the
 * event's write.
 */
export interface AuthEvents {
  /** A key was refused 429 in its rate window (the clock hour starting at `windowStart`). */
  apiKeyRateLimited(key: Pick<ApiKeyCredentialRecord, 'id' | 'tenantId' | 'rateLimit'>, windowStart: Date, windowSeconds: number): void;
  /** A failed sign-in started the throttling of this account's email (the lock began at `lockStart`, the database's time). */
  signInLocked(account: Pick<Account, 'id' | 'tenantId'>, email: string, lockStart: Date, lockedUntil: Date): void;
}
