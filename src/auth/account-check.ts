import { errors } from '../errors/index.js';
import { refusedCredential, type RefusedCredential } from './credential-refusal.js';
import { ACCOUNT_DISABLED, isAccountActive } from './account-status.js';
import type { Account, AccountStore } from './ports.js';

/** What a user credential (an access token, a session's refresh token) says of the account it acts for. */
export interface CredentialHolder {
  userId: string;
  tenantId: string | null;
  /** The account's token version the credential was issued under. */
  tokenVersion: number;
}

/** How the refusals name the credential: `Access token`, `Refresh token`. */
export type CredentialName = 'Access token' | 'Refresh token';

const REVOKED: Record<CredentialName, string> = {
  'Access token': "Access token revoked: the password changed or the user's sessions were ended",
  'Refresh token': 'Session ended: the password changed or every session of the user was ended',
};

const KIND: Record<CredentialName, RefusedCredential> = { 'Access token': 'jwt', 'Refresh token': 'refresh_token' };

/**
 * The one check of the account behind a user's credential, on every request
 * (access tokens) and every refresh: the account still exists in the same
 * tenant, and the credential was issued under its current token version (a
 * password change, or ending all of a user's sessions, raises it). Anything
 * else is 401. The account's state checks belong here too, so every
 * credential refuses alike.
 */
export async function usableAccount(accounts: Pick<AccountStore, 'findAccount'>, holder: CredentialHolder, credential: CredentialName): Promise<Account> {
  const account = await accounts.findAccount(holder.userId);
  if (!account || account.tenantId !== holder.tenantId) {
    throw refusedCredential(KIND[credential], 'unknown_user', errors.unauthenticated(`Invalid ${credential.toLowerCase()}: unknown user`));
  }
  // Before the version: a disable raises it too, and the holder is told why.
  if (!isAccountActive(account)) throw refusedCredential(KIND[credential], 'account_disabled', errors.unauthenticated(ACCOUNT_DISABLED));
  if (account.tokenVersion !== holder.tokenVersion) {
    // Issued before the latest password change or end of every session (each raises the version).
    throw refusedCredential(KIND[credential], 'revoked', errors.unauthenticated(REVOKED[credential]));
  }
  return account;
}
