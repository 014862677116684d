import type { Account } from './ports.js';

/** What a credential of a disabled account is told (its access token, session, or sign-in after the right password). */
export const ACCOUNT_DISABLED = 'Account disabled';
/** What a request made with an API key of a disabled creator is told (a key acts as its creator). */
export const KEY_CREATOR_DISABLED = 'API key creator is disabled';

/**
 * The one status rule of every credential (access token, API key acting for
 * its creator, sign-in, refresh): only an active account acts. A deleted
 * account never reaches here: the account port does not find it.
 */
export function isAccountActive(account: Pick<Account, 'status'>): boolean {
  return account.status === 'active';
}
