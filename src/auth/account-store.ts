/**
 * What sign-in and credentials need to read about users and roles. auth/
 * declares it and the users area implements it (src/users/account-store.ts),
 * so the mechanism never imports the area that uses it.
 */
export interface Account {
  id: string;
  /** null: a platform administrator. */
  tenantId: string | null;
  roles: readonly string[];
  /** Raised by every password change: tokens issued under an older version are refused. */
  tokenVersion: number;
}

export interface LoginCandidate extends Account {
  passwordHash: string;
}

export interface AccountStore {
  /** The account an access token names, or null when it is gone. */
  findAccount(id: string): Promise<Account | null>;
  /**
   * The one account a sign-in with this email (case-insensitively) checks the
   * password of, or null:
   * - `tenant` a string: the account of that tenant;
   * - `tenant` null: the platform account (no tenant);
   * - `tenant` undefined (not named): the platform account when there is one,
   *   else the only tenant account with the email when exactly one exists.
   * Reads a bounded number of records, whatever exists.
   */
  findLoginCandidate(email: string, tenant: string | null | undefined): Promise<LoginCandidate | null>;
  /** The permissions the tenant's custom roles with these ids grant (unknown ids grant nothing). */
  customRolePermissions(tenantId: string | null, roleIds: readonly string[]): Promise<string[]>;
}
