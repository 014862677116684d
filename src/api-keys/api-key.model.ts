import { getModelForClass, index, modelOptions, plugin, prop, Severity } from '@typegoose/typegoose';
import mongoose, { trusted, type Types } from 'mongoose';
import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { FilledOnlyUnder, JSONObject } from '../graphql/index.js';
import { AnsweredOverRestWhen, CreatedAtField, UpdatedAtField } from '../shared/index.js';
import { forgetApiKeyGrantsOnWrite } from './api-key-grants.js';
import { ApiKeyUsage } from './api-key-usage.model.js';

/** The collection typegoose stores API keys in. */
export const API_KEY_COLLECTION = 'apikeys';

/** Requests per hour when a key is created without `rateLimit`. */
export const DEFAULT_RATE_LIMIT = 1000;

/** How many usage-log entries `apiKey(includeUsageLogs: true)` answers (the newest). */
export const USAGE_LOGS_IN_RECORD = 100;

/**
 * Where a key stands, computed when read: `revoked` once `revokedAt` is set
 * (for good), else `expired` once `expiresAt` has passed, else `disabled`
 * while `disabledAt` is set, else `active`. Expired wins over disabled: both
 * revoked and expired keys cannot be enabled again, so the status says the
 * one thing that decides what can still be done with the key.
 */
export enum ApiKeyStatus {
  active = 'active',
  revoked = 'revoked',
  expired = 'expired',
  disabled = 'disabled',
}

registerEnumType(ApiKeyStatus, {
  name: 'ApiKeyStatus',
  description:
    'active: usable; revoked: disabled for good; expired: its expiresAt has passed; disabled: refused until enabled again (revoked, then expired, win over disabled).',
});

/** One accepted secret: the current one (no end), or a rolled one until its grace period ends. */
export class ApiKeySecret {
  /** SHA-256 (hex) of the secret; the secret itself is never stored. */
  @prop({ required: true })
  hash!: string;

  /** null: the current secret. */
  @prop({ type: () => Date, default: null })
  validUntil!: Date | null;
}

/** The key's current hourly rate window: when it started and how many uses it holds. */
export class RateWindow {
  @prop({ required: true })
  start!: Date;

  @prop({ required: true })
  count!: number;
}

/** The fields of a stored key `status` is computed from. */
export type StatusFields = Pick<ApiKey, 'revokedAt' | 'expiresAt'> & Partial<Pick<ApiKey, 'disabledAt'>>;

export function apiKeyStatusAt(key: StatusFields, now: Date): ApiKeyStatus {
  if (key.revokedAt) return ApiKeyStatus.revoked;
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return ApiKeyStatus.expired;
  if (key.disabledAt) return ApiKeyStatus.disabled;
  return ApiKeyStatus.active;
}

/** A query filter for keys in `status` at `now`, the same rule as `apiKeyStatusAt`. */
export function statusFilter(status: ApiKeyStatus, now: Date): Record<string, unknown> {
  switch (status) {
    case ApiKeyStatus.active:
      // null also matches a key stored before disabledAt existed.
      return { ...liveAt(now), disabledAt: null };
    case ApiKeyStatus.disabled:
      return { ...liveAt(now), disabledAt: trusted({ $ne: null }) };
    case ApiKeyStatus.revoked:
      return { revokedAt: trusted({ $ne: null }) };
    case ApiKeyStatus.expired:
      // A null or missing expiresAt never compares as <= a date.
      return { revokedAt: null, expiresAt: trusted({ $lte: now }) };
  }
}

/** Keys that are neither revoked nor expired at `at` (null also matches a missing field). */
export function liveAt(at: Date): Record<string, unknown> {
  return { revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: trusted({ $gt: at }) }] };
}

/** A key as a lineage or a dry-run revoke names it. */
@ObjectType({ description: 'An API key in brief: id, name, status and last use.' })
export class ApiKeySummary {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field(() => ApiKeyStatus)
  status!: ApiKeyStatus;

  @Field(() => Date, { nullable: true })
  lastUsedAt!: Date | null;
}

/**
 * An API key (service description 2.1, plus `tenant_id`, `revokedAt`,
 * `revokedBy`). One class is the stored record (typegoose `@prop`) and the
 * GraphQL type (`@Field`). `secrets` (SHA-256 hashes only) and `rateWindow`
 * have no `@Field` and are `select: false`: mongoose reads them only when a
 * query asks for them (the credential store does; the whole-record read of
 * one key goes through the driver and drops them before answering). `status` is not
 * stored: the resolver computes it whenever it is read (`apiKeyStatusAt`).
 */
@ObjectType({ description: 'An API key; never carries its secret or a hash of it.' })
@index({ keyId: 1 }, { unique: true })
// Lists: per tenant, all of them (first index) or the caller's own (second), paged by _id;
// each gives the _id order after its equality fields, so a page reads only its own records.
@index({ tenant_id: 1, _id: 1 })
@index({ tenant_id: 1, createdBy: 1, _id: 1 })
// A revoke finds the keys the revoked one created, and theirs, in its tenant.
@index({ tenant_id: 1, createdByKey: 1 })
// The expiry sweep (api-key-expiry.sweeper.ts) reads the keys whose expiresAt is within the next 7 days.
@index({ expiresAt: 1 })
// A key written through the model (revoked, rolled, changed) ends this process's grants of uses at once.
@plugin(forgetApiKeyGrantsOnWrite)
@modelOptions({
  // minimize: false keeps an empty `metadata` object in the stored record.
  schemaOptions: { collection: API_KEY_COLLECTION, timestamps: true, minimize: false },
  options: { allowMixed: Severity.ALLOW },
})
export class ApiKey {
  @Field(() => ID, { description: 'The record id (24 hexadecimal characters).' })
  readonly _id!: Types.ObjectId;

  /** mongoose's `id` virtual: the `_id` as a string. */
  @Field(() => ID, { description: 'The same value as _id, for clients that cache by id.' })
  readonly id!: string;

  @Field({ description: 'Public identifier of the key: the part of the secret after ak_ (12 characters); kept when rolled.' })
  @prop({ required: true })
  keyId!: string;

  @Field({ description: 'Descriptive name (1 to 100 characters).' })
  @prop({ required: true })
  name!: string;

  @Field(() => String, { nullable: true, description: 'Detailed purpose of the key (up to 500 characters).' })
  @prop({ type: () => String, default: null })
  description!: string | null;

  @Field(() => [String], { description: 'The permissions the key acts with (never beyond what its creator holds).' })
  @prop({ type: () => [String], default: [] })
  scopes!: string[];

  @Field(() => [String], { description: 'Origins (http(s)://host[:port]) the key may be used from; empty: any.' })
  @prop({ type: () => [String], default: [] })
  allowedOrigins!: string[];

  @Field(() => [String], { description: 'IP addresses or CIDR blocks the key may be used from; empty: any.' })
  @prop({ type: () => [String], default: [] })
  allowedIPs!: string[];

  @Field(() => Date, { nullable: true, description: 'When the key expires; null: never.' })
  @prop({ type: () => Date, default: null })
  expiresAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When the key was last used; null: never.' })
  @prop({ type: () => Date, default: null })
  lastUsedAt!: Date | null;

  @Field(() => Float, { description: 'How many times the key was accepted (an integer).' })
  @prop({ type: () => Number, default: 0 })
  usageCount!: number;

  @Field(() => Int, { description: 'Requests per hour.' })
  @prop({ type: () => Number, default: DEFAULT_RATE_LIMIT })
  rateLimit!: number;

  @Field({ description: 'Id of the user who created the key.' })
  @prop({ required: true })
  createdBy!: string;

  @Field(() => String, {
    nullable: true,
    description:
      'Id (_id) of the API key whose credential created this key (createdBy is still its user); null when a user created it in person. ' +
      'The key stays within that key\'s expiry, rate limit and allowed IPs and origins, and revoking that key revokes this one.',
  })
  @prop({ type: () => String, default: null })
  createdByKey!: string | null;

  @Field({ description: 'Id of the user who last updated the key.' })
  @prop({ required: true })
  updatedBy!: string;

  @Field(() => JSONObject, { description: 'Additional free-form metadata (a JSON object).' })
  @prop({ type: () => mongoose.Schema.Types.Mixed, default: () => ({}) })
  metadata!: Record<string, unknown>;

  @Field(() => String, { nullable: true, description: "The key's tenant; null for a platform administrator's key." })
  @prop({ type: () => String, default: null })
  tenant_id!: string | null;

  @Field(() => Date, { nullable: true, description: 'When the key was revoked; null while not revoked.' })
  @prop({ type: () => Date, default: null })
  revokedAt!: Date | null;

  @Field(() => String, { nullable: true, description: 'Id of the user who revoked the key.' })
  @prop({ type: () => String, default: null })
  revokedBy!: string | null;

  @Field(() => Date, { nullable: true, description: 'When the key was disabled (refused until enabled again); null while not disabled.' })
  @prop({ type: () => Date, default: null })
  disabledAt!: Date | null;

  @Field(() => String, { nullable: true, description: 'Why the key was disabled, as given to disableApiKey; null while not disabled.' })
  @prop({ type: () => String, default: null })
  disabledReason!: string | null;

  /**
   * Set on the keys a disable reached through the key that made them: a
   * paused key's secret cannot act, so neither may what it minted, and
   * enabling that key resumes exactly them.
   */
  @Field(() => ID, {
    nullable: true,
    description:
      'The key whose disableApiKey paused this one too (this key was made with its credential, or with a key it made); ' +
      'enabling that key resumes this one. null while not disabled, or when disabled on its own.',
  })
  @prop({ type: () => String, default: null })
  disabledWith!: string | null;

  @CreatedAtField()
  readonly createdAt!: Date;

  @UpdatedAtField()
  readonly updatedAt!: Date;

  /** Not stored: `apiKey(id, includeUsageLogs: true)` fills it. */
  @Field(() => [ApiKeyUsage], {
    nullable: true,
    description: `The most recent uses first, at most ${USAGE_LOGS_IN_RECORD}, when asked with includeUsageLogs; else null (apiKeyUsageLogs pages them all).`,
    complexity: ({ childComplexity }) => 1 + USAGE_LOGS_IN_RECORD * childComplexity,
  })
  // Lists and the mutations answer it null: priced there as the null it is.
  @FilledOnlyUnder('Query.apiKey')
  usageLogs?: ApiKeyUsage[] | null;

  /**
   * Not stored: `revokeApiKey(id, dryRun: true)` fills it. A field of ApiKey
   * (not of a revoke-only type) so that every selection of a key, fragments
   * on ApiKey included, stays valid in the revoke's answer; REST answers it
   * only with ?dryRun=true, so reads, lists and real revokes never carry it.
   */
  @Field(() => [ApiKeySummary], {
    nullable: true,
    description:
      'revokeApiKey(id, dryRun: true) only: the keys that revoke would end (this key while live, and every live key it made, and theirs), ' +
      'the key itself unchanged; null anywhere else (REST leaves it out unless dryRun=true).',
  })
  @FilledOnlyUnder('Mutation.revokeApiKey')
  @AnsweredOverRestWhen('dryRun')
  wouldRevoke?: ApiKeySummary[] | null;

  /** Hashes of the accepted secrets; never answered. */
  @prop({ type: () => [ApiKeySecret], _id: false, default: [], select: false })
  secrets!: ApiKeySecret[];

  /** The rate window the credential counts uses in; never answered. */
  @prop({ type: () => RateWindow, _id: false, default: null, select: false })
  rateWindow!: RateWindow | null;
}

export const ApiKeyModel = getModelForClass(ApiKey);
