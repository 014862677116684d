import type { DocumentType, ReturnModelType } from '@typegoose/typegoose';
import { trusted, type SchemaType, type Types } from 'mongoose';
import type { TenantFilter } from '../auth/index.js';
import {
  countRecords,
  decodeCursor,
  encodeCursor,
  findPage,
  lazyTotal,
  orStale,
  type Page,
  storedVersion,
  toObjectId,
  versionCondition,
} from '../shared/index.js';
import { ApiKeyUsage, ApiKeyUsageModel } from './api-key-usage.model.js';
import { ApiKey, ApiKeyModel, liveAt, type ApiKeySecret } from './api-key.model.js';
import { ApiKeyUsageRollupModel, type ApiKeyUsageRollup, type UsageOutcome } from './api-key-usage-rollup.model.js';

export type ApiKeyDocument = DocumentType<ApiKey>;

/** What a walk of keys made by keys leaves out of each key (findMadeBy). */
const MADE_KEY_PROJECTION = { secrets: 0, rateWindow: 0, metadata: 0 } as const;
export type ApiKeyUsageDocument = DocumentType<ApiKeyUsage>;

/** A key as read with `lean()`: the stored fields, no mongoose document around them. */
type StoredKey = Omit<ApiKey, 'id' | 'usageLogs'> & { _id: Types.ObjectId };
type StoredUsage = ApiKeyUsage & { _id: Types.ObjectId };

/** The fields a new key is stored with (the rest are mongoose's: `_id`, timestamps, defaults). */
export type NewApiKey = Omit<ApiKey, '_id' | 'id' | 'createdAt' | 'updatedAt' | 'usageLogs' | 'rateWindow'>;

/** What a revoke sets on each key it revokes. */
export interface Revocation {
  revokedAt: Date;
  revokedBy: string;
  updatedBy: string;
}

/** A key met while walking the keys made by keys: its id and whether it is revoked. */
export type MadeKey = Omit<StoredKey, 'secrets' | 'rateWindow' | 'metadata'>;

/** GraphQL fields computed from stored ones (`id` comes from `_id`, always read). */
const STORED_FOR_COMPUTED: Readonly<Record<string, readonly string[]>> = { status: ['revokedAt', 'expiresAt', 'disabledAt'] };

/** What the permission check reads of a key (ApiKeyService's assertMayAccess). */
const CHECKED = { createdBy: 1 } as const;

/**
 * The API keys area's reads and writes of its records, for ApiKeyService:
 * lean reads shaped into answers, the projections a read needs, and the
 * conditional updates revoke and roll rely on. The rules (who may, what
 * happens) are the service's; every read here is given the caller's tenant
 * scope (`TenantFilter`) by it.
 */
export class ApiKeyRecords {
  /** The stored fields a key's answer is made of: every top-level path but `_id`, `__v` and the never-answered (`select: false`) ones. */
  private readonly answeredFields: ReadonlySet<string>;

  constructor(
    private readonly model: ReturnModelType<typeof ApiKey> = ApiKeyModel,
    private readonly usage: ReturnModelType<typeof ApiKeyUsage> = ApiKeyUsageModel,
  ) {
    const answered: string[] = [];
    model.schema.eachPath((path: string, type: SchemaType) => {
      if (!path.includes('.') && path !== '_id' && path !== '__v' && type.options.select !== false) answered.push(path);
    });
    this.answeredFields = new Set(answered);
  }

  /** One page of the keys `filter` matches, as answered. */
  async page(filter: Record<string, unknown>, args: { limit: number; cursor?: string | null }): Promise<Page<ApiKey>> {
    const keys = { find: (pageFilter: Record<string, unknown>) => this.model.find(pageFilter).lean<StoredKey[]>(), countDocuments: (countFilter: Record<string, unknown>) => this.model.countDocuments(countFilter) };
    const page = await findPage(keys, filter, args);
    return { ...page, items: page.items.map((key) => this.answered(key)) };
  }

  /**
   * The key as answered, reading only the stored fields `fields` (GraphQL
   * field names; all when absent) need, and always its `createdBy`. Without
   * a projection the whole stored record is read through the driver: any
   * projection, the schema's own leaving out the secrets and the window
   * included, makes the engine decode and re-encode the record, which cost a
   * third of the engine's CPU per key read. The secret hashes thus reach this
   * process (as they do on every API-key request) and `answered` drops them
   * at once.
   */
  async findAnswer(id: string, scope: TenantFilter, fields?: ReadonlySet<string>): Promise<ApiKey | null> {
    const projection = this.projectionFor(fields);
    const filter = { _id: toObjectId(id), ...scope };
    const key = projection
      ? await this.model.findOne(filter, projection).lean<StoredKey>()
      : ((await this.model.collection.findOne(filter)) as StoredKey | null);
    return key && this.answered(key);
  }

  /** Only what the permission check reads of the key. */
  findCreator(id: string, scope: TenantFilter): Promise<Pick<ApiKey, 'createdBy'> | null> {
    return this.model.findOne({ _id: toObjectId(id), ...scope }, CHECKED).lean<Pick<ApiKey, 'createdBy'>>().exec();
  }

  /** The key as a document (`select`: e.g. `+secrets`), for the writes that answer it. */
  findDocument(id: string, scope: TenantFilter, select?: string): Promise<ApiKeyDocument | null> {
    const query = this.model.findOne({ _id: toObjectId(id), ...scope });
    return (select ? query.select(select) : query).exec();
  }

  findById(id: Types.ObjectId): Promise<ApiKeyDocument | null> {
    return this.model.findById(id).exec();
  }

  insert(key: NewApiKey): Promise<ApiKeyDocument> {
    return this.model.create(key);
  }

  async remove(id: Types.ObjectId): Promise<void> {
    await this.model.deleteOne({ _id: id });
  }

  /** Whether a key may still make keys: `active` (unrevoked and enabled), `disabled`, or `revoked` (or gone). */
  async makerState(id: string): Promise<'active' | 'disabled' | 'revoked'> {
    const key = await this.model.findOne({ _id: toObjectId(id) }, { revokedAt: 1, disabledAt: 1 }).lean<Pick<ApiKey, 'revokedAt' | 'disabledAt'>>();
    if (!key || key.revokedAt) return 'revoked';
    return key.disabledAt ? 'disabled' : 'active';
  }

  /** Revokes the key only while it is not revoked; answers it as revoked, or null when it was already (or is gone). */
  async revokeIfUnrevoked(id: Types.ObjectId, revocation: Revocation): Promise<ApiKeyDocument | null> {
    return this.writeIf({ _id: id, revokedAt: null }, { ...revocation });
  }

  /** Revokes each of the keys not yet revoked, each by an update of its own that applies only then; answers the ids it revoked. */
  async revokeEachUnrevoked(ids: readonly Types.ObjectId[], revocation: Revocation): Promise<string[]> {
    return this.setEachWhile(ids, { revokedAt: null }, { ...revocation });
  }

  /** Ids of the keys of the tenant created by the user `createdBy` (in person or through one of their keys) not yet revoked. */
  async findUnrevokedOfCreator(tenant: string | null, createdBy: string): Promise<Types.ObjectId[]> {
    const keys = await this.model.find({ tenant_id: tenant, createdBy, revokedAt: null }, { _id: 1 }).lean<Array<{ _id: Types.ObjectId }>>().exec();
    return keys.map((key) => key._id);
  }

  /**
   * The keys of the tenant made with the credential of any of `makers` (ids,
   * hex), in id order, at most `limit`; every answered field but metadata
   * (the status, name and last use a lineage shows).
   */
  findMadeBy(tenant: string | null, makers: readonly string[], limit = 0): Promise<MadeKey[]> {
    return this.model
      .find({ tenant_id: tenant, createdByKey: trusted({ $in: makers }) }, MADE_KEY_PROJECTION)
      .sort({ _id: 1 })
      .limit(limit)
      .lean<MadeKey[]>()
      .exec();
  }

  /** The key (by `_id`, hex) whose credential made this one; null when a user made it in person, or it is gone. */
  async findMaker(id: string): Promise<string | null> {
    const key: { createdByKey?: string | null } | null = await this.model.findOne({ _id: toObjectId(id) }, { createdByKey: 1 }).lean();
    return key?.createdByKey ?? null;
  }

  /**
   * Stores the key's new secrets, only while it is live at `now` and its
   * current secret is still `current` (when it has one): answers the key as
   * rolled, or null when a concurrent roll or revoke won.
   */
  replaceSecrets(key: ApiKeyDocument, current: ApiKeySecret | undefined, now: Date, secrets: ApiKeySecret[], updatedBy: string): Promise<ApiKeyDocument | null> {
    return this.model
      .findOneAndUpdate(
        { _id: key._id, ...liveAt(now), ...(current ? { secrets: trusted({ $elemMatch: { hash: current.hash, validUntil: null } }) } : {}) },
        { $set: { secrets, updatedBy } },
        { returnDocument: 'after' },
      )
      .exec();
  }

  /**
   * A page of a key's uses, most recent first: ordered by `at`, then `_id`
   * (uses are written in batches, so `at`, not insertion, is the order).
   * The cursor is the last entry's id; an entry the retention has removed
   * meanwhile ends the walk (everything older is gone too).
   */
  async usagePage(apiKeyId: string, { limit, cursor }: { limit: number; cursor?: string | null }): Promise<Page<ApiKeyUsage>> {
    const filter: Record<string, unknown> = { apiKeyId };
    const totalCount = lazyTotal(() => countRecords(this.usage, { apiKeyId }));
    const afterId = cursor ? decodeCursor(cursor) : null;
    if (afterId) {
      const last = await this.usage.findOne({ _id: toObjectId(afterId), apiKeyId }, { at: 1 }).lean();
      if (!last) return { items: [], nextCursor: null, totalCount };
      filter.$or = [{ at: trusted({ $lt: last.at }) }, { at: last.at, _id: trusted({ $lt: last._id }) }];
    }
    const found = await this.usage.find(filter).sort({ at: -1, _id: -1 }).limit(limit + 1).lean<StoredUsage[]>();
    // Entries are answered as stored, with the schema's defaults (lean: no documents built).
    const items = found.slice(0, limit).map((entry) => this.usage.applyDefaults(entry) as StoredUsage);
    const lastItem = items.at(-1);
    return { items, nextCursor: found.length > limit && lastItem ? encodeCursor(lastItem._id) : null, totalCount };
  }

  /**
   * What a read answers, from the stored record: mongoose's schema defaults
   * and the `id` a document would add, without the stored secret hashes and
   * rate window (defaults would add them back). Reads skip mongoose
   * documents (lean): building one was about a fifth of a key read's own CPU.
   */
  private answered(stored: StoredKey): ApiKey {
    // The hashes and the window leave first, so that nothing (defaults included, whose
    // errors quote values) ever handles them on the way to an answer.
    const { secrets: _secrets, rateWindow: _rateWindow, ...key } = stored;
    // applyDefaults only fills absent paths: a record holding every answered field needs no schema walk.
    if (this.holdsAnswered(key)) return Object.assign(key, { id: key._id.toHexString() }) as ApiKey;
    const { secrets: _added, rateWindow: _addedWindow, ...completed } = this.model.applyDefaults(key) as StoredKey;
    return Object.assign(completed, { id: completed._id.toHexString() }) as ApiKey;
  }

  /** Whether every answered field is in the record (undefined counts as absent, as it does for applyDefaults). */
  private holdsAnswered(stored: Omit<StoredKey, 'secrets' | 'rateWindow'>): boolean {
    const record = stored as unknown as Record<string, unknown>;
    for (const field of this.answeredFields) if (record[field] === undefined) return false;
    return true;
  }

  /**
   * The projection reading what `fields` (GraphQL field names) need, plus what
   * the permission check reads; undefined when they need every answered field
   * (the schema's own projection then leaves out only the secrets and the window).
   */
  private projectionFor(fields: ReadonlySet<string> | undefined): Record<string, 1> | undefined {
    if (!fields) return undefined;
    const needed = new Set<string>(Object.keys(CHECKED));
    for (const field of fields) {
      if (this.answeredFields.has(field)) needed.add(field);
      for (const stored of STORED_FOR_COMPUTED[field] ?? []) needed.add(stored);
    }
    if (needed.size === this.answeredFields.size) return undefined;
    return Object.fromEntries([...needed].map((field) => [field, 1]));
  }

  // Usage over time: the hourly rollups and the operations the log recorded.

  /** A key's hourly rollups whose hour starts in [from, to), oldest first. */
  rollups(apiKeyId: string, from: Date, to: Date): Promise<StoredRollup[]> {
    return ApiKeyUsageRollupModel.find({ apiKeyId, hour: trusted({ $gte: from, $lt: to }) }, { _id: 0, hour: 1, success: 1, unauthorized: 1, forbidden: 1, rateLimited: 1 })
      .sort({ hour: 1 })
      .lean<StoredRollup[]>();
  }

  /** The distinct operations a key's logged uses since `since` reached. */
  async operationsUsed(apiKeyId: string, since: Date): Promise<string[]> {
    const found = await this.usage.collection.distinct('operations', { apiKeyId, at: { $gte: since } });
    return found.filter((operation): operation is string => typeof operation === 'string');
  }

  /** The key's scopes (the report compares them with what its uses needed). */
  async findScopes(id: string, scope: TenantFilter): Promise<Pick<ApiKey, 'createdBy' | 'scopes'> | null> {
    return this.model.findOne({ _id: toObjectId(id), ...scope }, { createdBy: 1, scopes: 1 }).lean<Pick<ApiKey, 'createdBy' | 'scopes'>>();
  }

  // Conditional writes of update, disable and enable (a revoke's are above).
  // Each goes through the model with a filter naming the key's _id, so its plugin ends this
  // process's grants of the key at once (other instances' within GRANT_MAX_AGE_MS), and each
  // takes a REST If-Match (versionCondition / orStale: a stale version is 412).

  /** Sets `changes` on the key while it is unrevoked; answers it as updated, or null when it is revoked (or gone). */
  async updateUnrevoked(id: Types.ObjectId, changes: ApiKeyChanges): Promise<ApiKeyDocument | null> {
    return this.writeIf({ _id: id, revokedAt: null }, changes);
  }

  /** Disables the key while it is not disabled nor revoked; answers it as disabled, or null when it already was (or is revoked, or gone). */
  async disableIfEnabled(id: Types.ObjectId, reason: string | null, updatedBy: string): Promise<ApiKeyDocument | null> {
    return this.writeIf({ _id: id, revokedAt: null, disabledAt: null }, { disabledAt: new Date(), disabledReason: reason, disabledWith: null, updatedBy });
  }

  /** Enables the key while it is disabled and live at `now`; answers it as enabled, or null when it is not (or is gone). */
  async enableIfDisabled(id: Types.ObjectId, now: Date, updatedBy: string): Promise<ApiKeyDocument | null> {
    return this.writeIf({ _id: id, ...liveAt(now), disabledAt: trusted({ $ne: null }) }, { disabledAt: null, disabledReason: null, disabledWith: null, updatedBy });
  }

  /**
   * Makes a pause that reached the key through `pausedWith` its own (a disable
   * of the key itself): enabling that other key no longer resumes it.
   */
  async ownPause(id: Types.ObjectId, pausedWith: string, reason: string | null, updatedBy: string): Promise<ApiKeyDocument | null> {
    return this.writeIf({ _id: id, revokedAt: null, disabledWith: pausedWith }, { disabledAt: new Date(), disabledReason: reason, disabledWith: null, updatedBy });
  }

  /**
   * Pauses each of `ids` still enabled and unrevoked, as reached by the
   * disable of `pausedWith`; answers the ids it paused.
   */
  async disableEachEnabled(ids: readonly Types.ObjectId[], pausedWith: string, reason: string | null, updatedBy: string): Promise<string[]> {
    return this.setEachWhile(ids, { revokedAt: null, disabledAt: null }, { disabledAt: new Date(), disabledReason: reason, disabledWith: pausedWith, updatedBy });
  }

  /** Resumes each of `ids` paused by the disable of `pausedWith` (and live at `now`); answers the ids it resumed. */
  async enableEachPausedWith(ids: readonly Types.ObjectId[], pausedWith: string, now: Date, updatedBy: string): Promise<string[]> {
    return this.setEachWhile(ids, { ...liveAt(now), disabledWith: pausedWith }, { disabledAt: null, disabledReason: null, disabledWith: null, updatedBy });
  }

  /**
   * Sets `changes` on each of `ids` by an update of its own that applies only
   * while the key matches `condition` (so concurrent walks change each key
   * once); answers the ids it changed. Through the model, so this process's
   * grants of each end at once (others' within GRANT_MAX_AGE_MS).
   */
  private async setEachWhile(ids: readonly Types.ObjectId[], condition: Record<string, unknown>, changes: Record<string, unknown>): Promise<string[]> {
    const updates = ids.map((id) => this.model.findOneAndUpdate({ _id: id, ...condition }, { $set: changes }, { projection: { _id: 1 } }).lean());
    return (await Promise.all(updates)).flatMap((updated) => (updated ? [updated._id.toHexString()] : []));
  }

  /** Sets `changes` on the key while it matches `filter` and a REST If-Match (if any) holds; a stale version is 412 (orStale). */
  private async writeIf(filter: { _id: Types.ObjectId } & Record<string, unknown>, changes: Record<string, unknown>): Promise<ApiKeyDocument | null> {
    const written = await this.model.findOneAndUpdate({ ...filter, ...versionCondition() }, { $set: changes }, { returnDocument: 'after' }).exec();
    return orStale(written, () => storedVersion(this.model.collection, { _id: filter._id }));
  }
}

/** What an update sets: the fields given (null where cleared) and who made the change. */
export type ApiKeyChanges = Partial<
  Pick<ApiKey, 'name' | 'description' | 'scopes' | 'allowedOrigins' | 'allowedIPs' | 'expiresAt' | 'rateLimit' | 'metadata'>
> & { updatedBy: string };

/** An hour's counts as the rollups store them. */
export type StoredRollup = Pick<ApiKeyUsageRollup, 'hour' | UsageOutcome>;

/**
 * The record as a plain object with what the answer adds (`key`,
 * `usageLogs`); the `id` virtual is computed into it, and the stored
 * secret hashes and rate window are left out.
 */
export function answer<T extends object>(key: ApiKeyDocument, extras: T): ApiKey & T {
  const { secrets: _secrets, rateWindow: _rateWindow, ...record } = key.toObject({ virtuals: true }) as ApiKey;
  return Object.assign(record as ApiKey, extras);
}
