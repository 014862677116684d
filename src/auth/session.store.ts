import { trusted, Types } from 'mongoose';
import { createShortLivedCache, isObjectIdString, orStale, storedVersion, toObjectId, versionCondition } from '../shared/index.js';
import { newRefreshToken } from './refresh-token.js';
import { Session, SessionModel } from './session.model.js';

/** A session as stored. */
export type StoredSession = Session;

/** Who a session is for and where it was used from. */
export interface SessionStart {
  userId: string;
  tenantId: string | null;
  tokenVersion: number;
  ip: string;
  userAgent: string | null;
  ttlSeconds: number;
  /** JWT_SECRET: the refresh tokens' tags are made under a key derived from it (refresh-token.ts). */
  jwtSecret: string;
}

/** Where a refresh came from. */
export interface SessionUse {
  ip: string;
  userAgent: string | null;
  ttlSeconds: number;
  jwtSecret: string;
}

/** Why a session ended (stored as `endReason`). */
export type EndReason = 'logout' | 'ended' | 'refresh-reuse';

/**
 * How long a session's state is trusted without a database read on a
 * request carrying its access token: ended through this instance, the next
 * request is refused (every write here forgets that session's state, and
 * only that one: a loop of refreshes costs other sessions no reads); through
 * another, within this bound, as the account cache (src/users/account-cache.ts).
 */
export const SESSION_STATE_MAX_AGE_MS = 1000;

/** What the access-token check needs of a session: whether it still lives. */
interface SessionState {
  endedAt: Date | null;
  expireAt: Date;
}

const sessionStates = createShortLivedCache<SessionState | null>({ maxAgeMs: SESSION_STATE_MAX_AGE_MS });

/** The latest user agent is kept, cut: a header is the client's to fill. */
const USER_AGENT_MAX_LENGTH = 256;

/**
 * The reads and writes of sign-in sessions (session.model.ts). The rules
 * (who may end which, what a refresh checks) are their callers': the
 * refresh service here in auth/ and the users area's session service.
 */
export class SessionRecords {
  constructor(private readonly model = SessionModel) {}

  /** A new live session, and its first refresh token (only its hash is stored). */
  async start(start: SessionStart): Promise<{ id: string; refreshToken: string }> {
    const _id = new Types.ObjectId();
    const id = _id.toHexString();
    const { token, hash } = newRefreshToken(start.jwtSecret, id, 0);
    const now = new Date();
    await this.model.collection.insertOne({
      _id,
      user_id: start.userId,
      tenant_id: start.tenantId,
      tokenVersion: start.tokenVersion,
      refreshHash: hash,
      generation: 0,
      createdAt: now,
      lastUsedAt: now,
      updatedAt: now,
      ip: start.ip,
      userAgent: cutUserAgent(start.userAgent),
      expireAt: expiry(now, start.ttlSeconds),
      endedAt: null,
      endReason: null,
    } as never);
    return { id, refreshToken: token };
  }

  /** The session with this id, ended or not; null when there is none (or it expired and was removed). */
  find(id: string): Promise<StoredSession | null> {
    if (!isObjectIdString(id)) return Promise.resolve(null);
    return this.model.findById(id).lean<StoredSession>().exec();
  }

  /**
   * Spends `spentHash` (of generation `generation`) and makes the next
   * generation's refresh token, in one conditional write: only while
   * `spentHash` is the session's current token, the session is not ended and
   * still at `tokenVersion`. Of concurrent refreshes with one token, exactly
   * one write matches; null for the others.
   */
  async rotate(id: string, spentHash: string, generation: number, tokenVersion: number, use: SessionUse): Promise<string | null> {
    const { token, hash } = newRefreshToken(use.jwtSecret, id, generation + 1);
    const now = new Date();
    const result = await this.model.updateOne(
      { _id: toObjectId(id), refreshHash: spentHash, generation, endedAt: null, tokenVersion, expireAt: trusted({ $gt: now }) },
      {
        $set: { refreshHash: hash, generation: generation + 1, lastUsedAt: now, updatedAt: now, ip: use.ip, userAgent: cutUserAgent(use.userAgent), expireAt: expiry(now, use.ttlSeconds) },
      },
    );
    sessionStates.forget(id);
    return result.modifiedCount === 1 ? token : null;
  }

  /**
   * Ends one session not ended yet (of `userId` when given), under the
   * client's If-Match (DELETE /auth/sessions/{id}); answers it as ended, or
   * null when there was none such.
   */
  async end(id: string, reason: EndReason, userId?: string): Promise<StoredSession | null> {
    if (!isObjectIdString(id)) return null;
    const filter = { _id: toObjectId(id), ...(userId === undefined ? {} : { user_id: userId }), endedAt: null };
    const now = new Date();
    const ended = await orStale(
      await this.model
        .findOneAndUpdate({ ...filter, ...versionCondition() }, { $set: { endedAt: now, endReason: reason, updatedAt: now } }, { returnDocument: 'after' })
        .lean<StoredSession>()
        .exec(),
      () => storedVersion(this.model.collection, filter),
    );
    sessionStates.forget(id);
    return ended;
  }

  /** The user's live sessions under their current token version, most recently used first; at most `limit`. */
  live(userId: string, tokenVersion: number, limit: number): Promise<StoredSession[]> {
    return this.model
      .find(liveFilter(userId, tokenVersion), { refreshHash: 0 })
      .sort({ lastUsedAt: -1 })
      .limit(limit)
      .lean<StoredSession[]>()
      .exec();
  }

  /** How many live sessions the user has under this token version. */
  countLive(userId: string, tokenVersion: number): Promise<number> {
    return this.model.countDocuments(liveFilter(userId, tokenVersion)).exec();
  }

  /**
   * Carries a live session of the user over to the account's new token
   * version (a password change keeps the session it was made in; the others
   * stay behind, ended), only from `fromVersion`, the version the change was
   * proved under. False when there was no such session (ended meanwhile).
   */
  async moveToVersion(id: string, userId: string, fromVersion: number, tokenVersion: number): Promise<boolean> {
    const result = await this.model.updateOne(
      { _id: toObjectId(id), user_id: userId, endedAt: null, tokenVersion: fromVersion },
      { $set: { tokenVersion, updatedAt: new Date() } },
    );
    sessionStates.forget(id);
    return result.modifiedCount === 1;
  }

  /**
   * Whether the session an access token names still lives (not ended, not
   * expired), read at most once per SESSION_STATE_MAX_AGE_MS per session:
   * every request carrying a session's token asks, and a session that is
   * fine costs no database read on most of them.
   */
  async isLive(id: string, at: Date = new Date()): Promise<boolean> {
    if (!isObjectIdString(id)) return false;
    const state = await sessionStates.get(id, async () => {
      const session = await this.model.findById(id, { endedAt: 1, expireAt: 1 }).lean<SessionState>().exec();
      return session && { endedAt: session.endedAt ?? null, expireAt: session.expireAt };
    });
    return state !== null && state.endedAt === null && state.expireAt > at;
  }
}

/** Forgets every cached session state (tests, and writes made around the records). */
export function forgetSessionStates(): void {
  sessionStates.clear();
}

function liveFilter(userId: string, tokenVersion: number) {
  return { user_id: userId, tokenVersion, endedAt: null, expireAt: trusted({ $gt: new Date() }) };
}

function expiry(from: Date, ttlSeconds: number): Date {
  return new Date(from.getTime() + ttlSeconds * 1000);
}

function cutUserAgent(userAgent: string | null): string | null {
  return userAgent ? userAgent.slice(0, USER_AGENT_MAX_LENGTH) : null;
}

