import { errors } from '../errors/index.js';
import { admitSignIn, type LoginThrottleSettings } from './login-throttle.js';
import { verifyPassword } from './password.js';
import type { AuthEvents } from './ports.js';

/** The account whose password is to be proved, as stored. */
export interface ProvedAccount {
  id: string;
  email: string;
  tenantId: string | null;
  passwordHash: string;
}

/** The field a proof of the current password is sent in (changePassword, updateUser). */
export const CURRENT_PASSWORD_FIELD = 'currentPassword';

/**
 * A signed-in user proves their current password before changing their
 * credentials. Counted by the sign-in throttle like a sign-in of that email
 * from that IP (a stolen access token cannot guess passwords faster than a
 * sign-in could): a throttled proof is 429 and checks nothing. A wrong
 * password is 403 naming `currentPassword` (rule `matches`), never 401,
 * which would tell a client its token is bad. A wrong one that starts the
 * account's throttling is told to `events` (`users.sign-in-locked`), as a
 * failed sign-in's is.
 */
export async function proveCurrentPassword(
  settings: LoginThrottleSettings,
  account: ProvedAccount,
  password: string | undefined,
  ip: string,
  events?: Pick<AuthEvents, 'signInLocked'>,
): Promise<void> {
  if (password === undefined || password === null) {
    throw errors.invalidField(CURRENT_PASSWORD_FIELD, 'required', 'currentPassword is required to change your own password or email');
  }
  const attempt = await admitSignIn(settings, account.email, ip, account.tenantId);
  const matches = await verifyPassword(account.passwordHash, password).catch(async (err: unknown) => {
    // Shed by the bound on Argon2 work (503): no password was checked, so nothing is counted.
    await attempt.unchecked();
    throw err;
  });
  if (!matches) {
    if (attempt.startsLock) events?.signInLocked({ id: account.id, tenantId: account.tenantId }, account.email, attempt.startsLock.at, attempt.startsLock.until);
    throw errors.forbiddenFields('The current password is not correct', [
      { field: CURRENT_PASSWORD_FIELD, rule: 'matches', message: 'currentPassword must be your current password' },
    ]);
  }
  await attempt.succeeded();
}
