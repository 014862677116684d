import type { AppConfig } from '../config.js';
import { errors } from '../errors/index.js';
import { usableAccount } from './account-check.js';
import { sameHash } from './api-key-secret.js';
import { signAccessToken, type JwtSettings } from './jwt.js';
import type { SignedSessionTokens } from './login.types.js';
import { NO_CHANGE_EVENTS, type AccountStore, type ChangeEvents } from './ports.js';
import { parseRefreshToken } from './refresh-token.js';
import type { SessionRecords, StoredSession } from './session.store.js';

/** The settings a refresh uses (AppConfig has them). */
export interface RefreshSettings {
  jwt: JwtSettings;
  sessions: AppConfig['sessions'];
}

/** The request a refresh arrives with. */
export interface RefreshClient {
  ip: string;
  userAgent: string | null;
  requestId: string;
}

/** The session a spent refresh token came back for, now ended. */
export interface ReusedSession {
  id: string;
  userId: string;
  tenantId: string | null;
}

/**
 * Told once when a spent refresh token is presented and its session ended
 * for it: the composition root writes `auth.refresh-reuse` to the audit
 * trail (auth/ knows no trail).
 */
export type RefreshReuseListener = (session: ReusedSession, client: RefreshClient) => Promise<void>;

const invalidToken = () => errors.unauthenticated('Invalid refresh token');
const reuseRefusal = () => errors.unauthenticated('Refresh token already used: the session is ended');

/**
 * `refreshAccessToken`: a session's refresh token -> a new access token and
 * the next refresh token, the presented one spent (rotation). Presenting a
 * spent token again ends the whole session, its access tokens too (reuse
 * detection, OAuth 2.0 Security BCP 4.14): either the client or a thief
 * holds a copy, and the server cannot tell which. The account behind the
 * session passes the same check as an access token's (usableAccount).
 */
export class RefreshService {
  constructor(
    private readonly accounts: AccountStore,
    private readonly sessions: SessionRecords,
    private readonly onReuse: RefreshReuseListener,
    private readonly events: ChangeEvents = NO_CHANGE_EVENTS,
  ) {}

  async refresh(settings: RefreshSettings, refreshToken: string, client: RefreshClient): Promise<SignedSessionTokens> {
    const parsed = parseRefreshToken(settings.jwt.secret, refreshToken);
    if (!parsed) throw invalidToken();
    const session = await this.sessions.find(parsed.sessionId);
    if (!session) throw invalidToken();
    // A tag this server made for an older generation: that token was issued, then spent (kept or not, no list ages out).
    const spent = parsed.generation < session.generation;
    if (!spent && (parsed.generation !== session.generation || !sameHash(session.refreshHash, parsed.hash))) throw invalidToken();
    assertLive(session);
    if (spent) return this.reused(session, client);
    const account = await usableAccount(
      this.accounts,
      { userId: session.user_id, tenantId: session.tenant_id, tokenVersion: session.tokenVersion },
      'Refresh token',
    );
    const id = String(session._id);
    const next = await this.sessions.rotate(id, parsed.hash, parsed.generation, session.tokenVersion, {
      ip: client.ip,
      userAgent: client.userAgent,
      ttlSeconds: settings.sessions.ttlSeconds,
      jwtSecret: settings.jwt.secret,
    });
    if (!next) return this.lostRotation(id, parsed.hash, client);
    const access = signAccessToken(settings.jwt, { sub: session.user_id, tenant: session.tenant_id, roles: [...account.roles], ver: session.tokenVersion, sid: id });
    return { ...access, refreshToken: next };
  }

  /**
   * The conditional write found the token no longer current: spent by a
   * concurrent refresh (the token was presented twice: reuse), or the
   * session ended or moved on meanwhile.
   */
  private async lostRotation(id: string, hash: string, client: RefreshClient): Promise<never> {
    const session = await this.sessions.find(id);
    if (!session) throw invalidToken();
    assertLive(session);
    if (sameHash(session.refreshHash, hash)) throw errors.unauthenticated('Session ended: the password changed or every session of the user was ended');
    return this.reused(session, client);
  }

  /** Ends the session a spent token came back for; the one call that ends it tells the listener. */
  private async reused(session: StoredSession, client: RefreshClient): Promise<never> {
    const id = String(session._id);
    const event = { type: 'auth.refresh-reuse', userId: session.user_id, tenantId: session.tenant_id, target: { type: 'Session', id } };
    const ended = await this.events.record(event, async () => (await this.sessions.end(id, 'refresh-reuse')) !== null);
    if (ended) await this.onReuse({ id, userId: session.user_id, tenantId: session.tenant_id }, client);
    throw reuseRefusal();
  }
}

function assertLive(session: StoredSession): void {
  if (session.endedAt) throw errors.unauthenticated('Session ended');
  if (session.expireAt <= new Date()) throw errors.unauthenticated('Session expired');
}
