import { signAccessToken, type JwtSettings, type SignedAccessToken } from './jwt.js';
import { dummyPasswordHash, verifyPassword } from './password.js';
import { errors } from '../errors/index.js';
import { MAX_LOGIN_CANDIDATES, type AccountStore } from './account-store.js';
import { admitSignIn, type LoginThrottleSettings } from './login-throttle.js';

export interface LoginInput {
  email: string;
  password: string;
  /** A tenant id; null: the platform account; absent: see AccountStore.findLoginCandidates. */
  tenantId?: string | null;
}

/** The settings a sign-in uses (AppConfig has them). */
export interface LoginSettings {
  jwt: JwtSettings;
  loginThrottle: LoginThrottleSettings;
}

/**
 * Email + password -> access token. The store names the candidate accounts
 * (AccountStore.findLoginCandidates): at most one when a tenant (or null, the
 * platform) is named, up to MAX_LOGIN_CANDIDATES when not. The sign-in
 * succeeds when exactly one candidate's password matches; none or several
 * (the caller must then name tenantId) is the same 401.
 *
 * Every sign-in verifies a fixed number of Argon2id hashes, whatever exists:
 * one with a tenant named, MAX_LOGIN_CANDIDATES without, the missing ones
 * against the dummy hash, all at once on libuv's pool. So an unknown email,
 * an email in one or several tenants and a wrong password get the same 401
 * for the same work, and none can be told apart. Before that, the sign-in
 * throttle (login-throttle.ts) counts the attempt or refuses it with 429, so
 * a throttled attempt costs no password check. Checking one password against
 * several accounts gives no account more guesses: they share the email, and
 * the throttle counts per email.
 */
export class LoginService {
  constructor(private readonly accounts: AccountStore) {
    // Made now, so the first sign-in without a candidate does not pay for it
    // (a failure here surfaces at that sign-in instead).
    dummyPasswordHash().catch(() => {});
  }

  async login(settings: LoginSettings, input: LoginInput, ip: string): Promise<SignedAccessToken> {
    const attempt = await admitSignIn(settings.loginThrottle, input.email, ip);
    const verifications = input.tenantId === undefined ? MAX_LOGIN_CANDIDATES : 1;
    const candidates = (await this.accounts.findLoginCandidates(input.email, input.tenantId)).slice(0, verifications);
    const dummy = await dummyPasswordHash();
    const matches = await Promise.all(
      Array.from({ length: verifications }, (_, i) => verifyPassword(candidates[i]?.passwordHash ?? dummy, input.password)),
    );
    const matched = candidates.filter((_, i) => matches[i]);
    // A failure stays counted: admitSignIn counted it already.
    if (matched.length !== 1) throw errors.unauthenticated('Invalid email or password');
    const [account] = matched;
    await attempt.succeeded();
    return signAccessToken(settings.jwt, {
      sub: account.id,
      tenant: account.tenantId,
      roles: [...account.roles],
      ver: account.tokenVersion,
    });
  }
}
