import {
  hashPassword,
  proveCurrentPassword,
  signAccessToken,
  tenantScope,
  type Actor,
  type JwtSettings,
  type LoginThrottleSettings,
  type SessionRecords,
  type SignedAccessToken,
  type StoredSession,
  type AuthEvents,
} from '../auth/index.js';
import { errors } from '../errors/index.js';
import type { EndedSession, EndedSessions, SessionView } from './session.types.js';
import type { RoleService } from './role.service.js';
import type { UserCredentialRecords } from './user.store.js';

/** A user's sessions listed at most (most recently used first). */
export const SESSIONS_LISTED = 100;

/** What a password change needs of the service's settings (AppConfig has them). */
export interface PasswordChangeSettings {
  jwt: JwtSettings;
  loginThrottle: LoginThrottleSettings;
}

const sessionNotFound = (id: string) => errors.notFound('Session', id);
const userNotFound = (id: string) => errors.notFound('User', id);

/**
 * Sign-in sessions as their users and administrators see them, and the
 * credentials a user changes in person (contract "Users: disabling,
 * deleting, sessions"). One's own sessions and password are matters of the
 * user in person: an API key, whatever its scopes, is 403. Another user's
 * sessions are an administrator's (users:update), confined to the tenant:
 * another tenant's user is 404. Ending every session of a user raises the
 * user's token version, which ends every access token issued before too.
 */
export class SessionService {
  constructor(
    private readonly sessions: SessionRecords,
    private readonly users: UserCredentialRecords,
    private readonly roles: Pick<RoleService, 'assertHoldsWhatTheyHold'>,
    /** Told when a wrong current password starts the account's throttling. */
    private readonly signInEvents?: Pick<AuthEvents, 'signInLocked'>,
  ) {}

  /** The caller's live sessions. */
  async mine(actor: Actor): Promise<SessionView[]> {
    inPerson(actor, 'Your sessions are listed only to you in person (signed in), never through an API key');
    return this.liveOf(actor, actor.userId);
  }

  /** One of the caller's live sessions; another's (or an ended one) is 404. */
  async one(actor: Actor, id: string): Promise<SessionView> {
    inPerson(actor, 'Your sessions are shown only to you in person (signed in), never through an API key');
    const version = await this.tokenVersionOf(actor, actor.userId);
    const session = await this.sessions.find(id);
    if (!session || session.user_id !== actor.userId || !isLive(session, version)) throw sessionNotFound(id);
    return view(session, actor);
  }

  /** Ends one of the caller's sessions (the current one too); another's is 404. */
  async endOwn(actor: Actor, id: string): Promise<EndedSession> {
    inPerson(actor, 'Your sessions are ended only by you in person (signed in), never through an API key');
    await this.one(actor, id);
    return ended(await this.sessions.end(id, 'ended', actor.userId), id);
  }

  /** Ends the session of the caller's access token (signing out). */
  async logout(actor: Actor): Promise<EndedSession> {
    const sessionId = inPerson(actor, 'logout ends the session of a signed-in user; an API key has none (revoke or disable the key instead)').sessionId;
    if (!sessionId) throw errors.forbidden('This access token belongs to no session (it was not made by login): there is nothing to sign out of');
    return ended(await this.sessions.end(sessionId, 'logout', actor.userId), sessionId);
  }

  /** A user's live sessions (an administrator's view). */
  async ofUser(actor: Actor, userId: string): Promise<SessionView[]> {
    return this.liveOf(actor, userId);
  }

  /**
   * Ends every session of a user by raising their token version; answers how
   * many were live. Another user's only when the caller holds every
   * permission they hold (a lesser administrator cannot sign out a more
   * powerful one); one's own always.
   */
  async endAllOf(actor: Actor, userId: string): Promise<EndedSessions> {
    const holder = await this.users.sessionHolder(tenantScope(actor), userId);
    if (!holder) throw userNotFound(userId);
    if (userId !== actor.userId) {
      await this.roles.assertHoldsWhatTheyHold(actor, holder.tenantId, holder.roles, 'sessions', 'it would sign them out');
    }
    const version = holder.tokenVersion;
    const live = await this.sessions.countLive(userId, version);
    if (!(await this.users.endTokens(tenantScope(actor), userId))) throw userNotFound(userId);
    return { userId, ended: live };
  }

  /**
   * The caller's new password, proved with the current one (403 naming
   * currentPassword when wrong, counted by the sign-in throttle). Raises the
   * token version, which ends every other session and every access token
   * issued before; the caller's session moves to the new version, and the
   * answer is its fresh access token (the one sent dies with the change).
   */
  async changePassword(actor: Actor, settings: PasswordChangeSettings, ip: string, currentPassword: string, newPassword: string): Promise<SignedAccessToken> {
    const { sessionId, tokenVersion: provenVersion = 0 } = inPerson(actor, 'Your password is changed only by you in person (signed in), never through an API key');
    const scope = tenantScope(actor);
    const user = await this.users.readWithPasswordHash(scope, actor.userId);
    if (!user) throw userNotFound(actor.userId);
    const account = { id: actor.userId, email: user.email, tenantId: user.tenant_id ?? null, passwordHash: user.passwordHash };
    await proveCurrentPassword(settings.loginThrottle, account, currentPassword, ip, this.signInEvents);
    // Only while the account is active and at the version the caller's token proves: a disable or an end of every session meanwhile wins.
    const changed = await this.users.setPassword(scope, actor.userId, await hashPassword(newPassword), actor.userId, provenVersion);
    if (!changed) throw endedMeanwhile();
    const tokenVersion = changed.tokenVersion ?? 0;
    // The caller's own session carries on under the new version; the others stay behind it: ended.
    // The session ended after the password write (endSession): the change stands, the session does not come back.
    if (sessionId !== undefined && !(await this.sessions.moveToVersion(sessionId, actor.userId, provenVersion, tokenVersion))) throw sessionEndedAfterChange();
    const keepsSession = sessionId !== undefined;
    return signAccessToken(settings.jwt, {
      sub: actor.userId,
      tenant: actor.tenantId,
      roles: [...(changed.roles ?? [])],
      ver: tokenVersion,
      ...(keepsSession ? { sid: sessionId } : {}),
    });
  }

  private async liveOf(actor: Actor, userId: string): Promise<SessionView[]> {
    const version = await this.tokenVersionOf(actor, userId);
    return (await this.sessions.live(userId, version, SESSIONS_LISTED)).map((session) => view(session, actor));
  }

  /** The user's token version, read within the caller's tenant: another tenant's user is 404. */
  private async tokenVersionOf(actor: Actor, userId: string): Promise<number> {
    const version = await this.users.tokenVersion(tenantScope(actor), userId);
    if (version === null) throw userNotFound(userId);
    return version;
  }
}

/** The caller, in person (an access token); an API key is 403 with `message`. */
function inPerson(actor: Actor, message: string): { sessionId?: string; tokenVersion?: number } {
  if (actor.via.kind !== 'jwt') throw errors.forbidden(message);
  return { sessionId: actor.via.sessionId, tokenVersion: actor.via.tokenVersion };
}

/** A password change that lost its race: the caller's session or tokens ended (or the account was disabled) while it was made. */
const endedMeanwhile = () => errors.unauthenticated('Session ended while the password was being changed: nothing was changed');
const sessionEndedAfterChange = () => errors.unauthenticated('Session ended while the password was being changed: the password is changed, sign in again');

function isLive(session: StoredSession, tokenVersion: number): boolean {
  return session.endedAt === null && session.tokenVersion === tokenVersion && session.expireAt > new Date();
}

function ended(session: StoredSession | null, id: string): EndedSession {
  if (!session?.endedAt) throw sessionNotFound(id);
  return { id, endedAt: session.endedAt };
}

function view(session: StoredSession, actor: Actor): SessionView {
  const id = String(session._id);
  return {
    id,
    createdAt: session.createdAt,
    lastUsedAt: session.lastUsedAt,
    updatedAt: session.updatedAt,
    expiresAt: session.expireAt,
    ip: session.ip,
    userAgent: session.userAgent ?? null,
    current: actor.via.kind === 'jwt' && actor.via.sessionId === id,
  };
}
