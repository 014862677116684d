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
}

export interface LoginCandidate extends Account {
  passwordHash: string;
}

export interface AccountStore {
  /** The account an access token names, or null when it is gone. */
  findAccount(id: string): Promise<Account | null>;
  /**
   * Accounts with this email (case-insensitively), in the named tenant when
   * `tenantId` is given, else in every tenant; at most `limit`.
   */
  findLoginCandidates(email: string, tenantId: string | undefined, limit: number): Promise<LoginCandidate[]>;
  /** The permissions the tenant's custom roles with these ids grant (unknown ids grant nothing). */
  customRolePermissions(tenantId: string | null, roleIds: readonly string[]): Promise<string[]>;
}
