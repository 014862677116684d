import { getModelForClass, index, modelOptions, prop, Severity } from '@typegoose/typegoose';
import type { Types } from 'mongoose';

/** The collection typegoose stores sign-in sessions in. */
export const SESSION_COLLECTION = 'sessions';

/**
 * One sign-in session (src/auth/session.store.ts): made by `login`, carried
 * on by each refresh, ended by logout, an administrator, a refresh token
 * presented twice, or the account's token version moving past the one it
 * was issued under. In the database, so every instance sees the same
 * session. Holds only hashes of its refresh tokens, never a token. Answered
 * only through the users area's session views (id, times, ip, user agent).
 */
// Expires unused: each refresh pushes expireAt on; the TTL index removes it once passed.
@index({ expireAt: 1 }, { expireAfterSeconds: 0 })
// A user's sessions, most recently used first (mySessions, userSessions, endUserSessions).
@index({ user_id: 1, lastUsedAt: -1 })
@modelOptions({
  schemaOptions: { collection: SESSION_COLLECTION, versionKey: false },
  options: { allowMixed: Severity.ERROR },
})
export class Session {
  _id!: Types.ObjectId;

  @prop({ required: true })
  user_id!: string;

  /** null: a platform account. */
  @prop({ type: () => String, default: null })
  tenant_id!: string | null;

  /** The account's token version the session was issued under: a session behind its account's is ended. */
  @prop({ required: true })
  tokenVersion!: number;

  /** SHA-256 (hex) of the refresh token that carries the session on now. */
  @prop({ required: true })
  refreshHash!: string;

  /**
   * The current refresh token's generation (0 at sign-in, +1 per refresh): a
   * token of an older generation with a valid tag (refresh-token.ts) is a
   * spent one presented again, and ends the session.
   */
  @prop({ required: true, default: 0 })
  generation!: number;

  @prop({ required: true })
  createdAt!: Date;

  /** The sign-in or the latest refresh. */
  @prop({ required: true })
  lastUsedAt!: Date;

  /** The latest write (start, refresh, end): the session's version for a REST If-Match. */
  @prop({ required: true })
  updatedAt!: Date;

  /** The client address of the sign-in or the latest refresh. */
  @prop({ type: () => String, default: '' })
  ip!: string;

  /** The User-Agent header of the sign-in or the latest refresh (cut to 256 characters); null when none was sent. */
  @prop({ type: () => String, default: null })
  userAgent!: string | null;

  /** lastUsedAt + SESSION_TTL: unused until then, the session is over (the TTL index removes it). */
  @prop({ required: true })
  expireAt!: Date;

  /** Set when the session was ended; null while it lives (until it expires). */
  @prop({ type: () => Date, default: null })
  endedAt!: Date | null;

  /** Why it ended: logout, ended (by its user or an administrator), refresh-reuse. */
  @prop({ type: () => String, default: null })
  endReason!: string | null;
}

export const SessionModel = getModelForClass(Session);
