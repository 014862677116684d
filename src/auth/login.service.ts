import type { AppConfig } from '../config.js';
import { signAccessToken, type JwtSettings } from './jwt.js';
import type { SignedSessionTokens } from './login.types.js';
import { dummyPasswordHash, verifyPassword } from './password.js';
import { errors } from '../errors/index.js';
import type { AccountStore, AuthEvents, LoginCandidate } from './ports.js';
import { admitSignIn, type LoginThrottleSettings, type SignInAttempt } from './login-throttle.js';
import { ACCOUNT_DISABLED, isAccountActive } from './account-status.js';
import type { SessionRecords } from './session.store.js';

export interface LoginInput {
  email: string;
  password: string;
  /** A tenant id; null: the platform account; absent: see AccountStore.findLoginCandidate. */
  tenantId?: string | null;
}

/** The settings a sign-in uses (AppConfig has them). */
export interface LoginSettings {
  jwt: JwtSettings;
  loginThrottle: LoginThrottleSettings;
  sessions: AppConfig['sessions'];
}

/** The client a sign-in comes from: its session keeps both. */
export interface SignInClient {
  ip: string;
  userAgent: string | null;
}

/**
 * Email + password -> access token. At most one account is a candidate (the
 * store chooses it from the email and tenantId), and every sign-in verifies
 * exactly one Argon2id hash: the candidate's, or the dummy one when there is
 * none. An unknown email, an email in many tenants and a wrong password get
 * the same 401 for the same work, so none can be told apart. Before that,
 * the sign-in throttle (login-throttle.ts) counts the attempt or refuses it
 * with 429, so a throttled attempt costs no password check. The check itself
 * takes a turn in the process's bounded Argon2 queue (password.ts): when that
 * is full the sign-in gets 503 with Retry-After and is not counted.
 *
 * A sign-in starts a session (session.store.ts): the access token names it
 * (`sid`) and the answer carries its first refresh token.
 */
export class LoginService {
  constructor(
    private readonly accounts: AccountStore,
    private readonly sessions: SessionRecords,
    /** Told when a failed sign-in starts an account's throttling (`users.sign-in-locked`). */
    private readonly events?: Pick<AuthEvents, 'signInLocked'>,
  ) {
    // Made now, so the first sign-in without a candidate does not pay for it
    // (a failure here surfaces at that sign-in instead).
    dummyPasswordHash().catch(() => {});
  }

  /**
   * A failed sign-in: when it started the email's throttling, tells `events`
   * (only for an account that exists: a lock on an email no account has
   * concerns no tenant). Answers the error to throw.
   */
  private failed(attempt: SignInAttempt, candidate: LoginCandidate | null, email: string, error: Error): Error {
    if (attempt.startsLock && candidate) this.events?.signInLocked(candidate, email, attempt.startsLock.at, attempt.startsLock.until);
    return error;
  }

  async login(settings: LoginSettings, input: LoginInput, { ip, userAgent }: SignInClient): Promise<SignedSessionTokens> {
    const attempt = await admitSignIn(settings.loginThrottle, input.email, ip, input.tenantId);
    const candidate = await this.accounts.findLoginCandidate(input.email, input.tenantId);
    const passwordHash = candidate ? candidate.passwordHash : await dummyPasswordHash();
    const matches = await verifyPassword(passwordHash, input.password).catch(async (err: unknown) => {
      // Shed by the bound on Argon2 work (503): no password was checked, so nothing is counted.
      await attempt.unchecked();
      throw err;
    });
    // A failure stays counted: admitSignIn counted it already.
    if (!candidate || !matches) throw this.failed(attempt, candidate, input.email, errors.unauthenticated('Invalid email or password'));
    // Said only after the right password, so the state does not leak; not a success, so the failure stays counted.
    if (!isAccountActive(candidate)) throw this.failed(attempt, candidate, input.email, errors.unauthenticated(ACCOUNT_DISABLED));
    await attempt.succeeded();
    const session = await this.sessions.start({
      userId: candidate.id,
      tenantId: candidate.tenantId,
      tokenVersion: candidate.tokenVersion,
      ip,
      userAgent,
      ttlSeconds: settings.sessions.ttlSeconds,
      jwtSecret: settings.jwt.secret,
    });
    const access = signAccessToken(settings.jwt, {
      sub: candidate.id,
      tenant: candidate.tenantId,
      roles: [...candidate.roles],
      ver: candidate.tokenVersion,
      sid: session.id,
    });
    return { ...access, refreshToken: session.refreshToken };
  }
}
