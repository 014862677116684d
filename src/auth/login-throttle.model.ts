import { getModelForClass, index, modelOptions, prop, Severity } from '@typegoose/typegoose';

/** The collection typegoose stores sign-in throttling counters in. */
export const LOGIN_THROTTLE_COLLECTION = 'loginthrottles';

/**
 * One sign-in throttling counter: of a submitted email or of a client IP
 * (src/auth/login-throttle.ts). In the database, not in memory, so every
 * instance of the service counts the same attempts; written only through
 * single atomic updates, with the database's clock (`$$NOW`), so instances
 * with skewed clocks agree. Never answered by any operation.
 */
// A counter starts over after a quiet window; the TTL index then removes it.
@index({ expireAt: 1 }, { expireAfterSeconds: 0 })
@modelOptions({
  schemaOptions: { collection: LOGIN_THROTTLE_COLLECTION, versionKey: false },
  options: { allowMixed: Severity.ERROR },
})
export class LoginThrottle {
  /** `account:<normalised email>` or `ip:<address or IPv6 /64>`. */
  @prop({ required: true })
  _id!: string;

  /** Attempts let through in this window that did not succeed (or are still running). */
  @prop({ required: true })
  failures!: number;

  /** When the latest of them was let through. */
  @prop({ required: true })
  lastAt!: Date;

  /** No attempt is let through before this (lastAt while under the free failures). */
  @prop({ required: true })
  lockedUntil!: Date;

  /** When the latest attempt was seen, let through or not: Retry-After counts from it. */
  @prop({ required: true })
  seenAt!: Date;

  /** lockedUntil + the window: the counter is over (the TTL index removes it). */
  @prop({ required: true })
  expireAt!: Date;

  /** A random id of the latest attempt let through: tells an attempt whether it was the one. */
  @prop({ required: true })
  attempt!: string;
}

export const LoginThrottleModel = getModelForClass(LoginThrottle);
