import type { DocumentType, ReturnModelType } from '@typegoose/typegoose';
import { trusted, type SchemaType, type Types } from 'mongoose';
import { generateApiKeySecret, hasPermission, isUserInPerson, tenantScope, type Actor } from '../auth/index.js';
import { AppError, errors } from '../errors/index.js';
import { toObjectId } from '../shared/object-id.js';
import { decodeCursor, encodeCursor, findPage, type Page } from '../shared/pagination.js';
import { ApiKeyUsage, ApiKeyUsageModel } from './api-key-usage.model.js';
import type { ApiKeysArgs, CreateApiKeyArgs } from './api-key.inputs.js';
import { ApiKey, ApiKeyModel, ApiKeyStatus, apiKeyStatusAt, liveAt, statusFilter, USAGE_LOGS_IN_RECORD, type ApiKeySecret } from './api-key.model.js';
import type { ApiKeyWithSecret } from './api-key.types.js';
import { assertRollWithin, settingsForCreate } from './api-key-bounds.js';

export type ApiKeyDocument = DocumentType<ApiKey>;
export type ApiKeyUsageDocument = DocumentType<ApiKeyUsage>;

/** A key as read with `lean()`: the stored fields, no mongoose document around them. */
type StoredKey = Omit<ApiKey, 'id' | 'usageLogs'> & { _id: Types.ObjectId };
type StoredUsage = ApiKeyUsage & { _id: Types.ObjectId };

/** GraphQL fields computed from stored ones (`id` comes from `_id`, always read). */
const STORED_FOR_COMPUTED: Readonly<Record<string, readonly string[]>> = { status: ['revokedAt', 'expiresAt'] };

/** What the permission check reads of a key. */
const CHECKED = { createdBy: 1 } as const;

/** Who may do what to a key besides its creator: the permission, and the refusal for anyone else of the tenant. */
interface Access {
  permission: 'api-keys:read' | 'api-keys:revoke';
  refusal: string;
}

const VIEW: Access = { permission: 'api-keys:read', refusal: 'You do not have permission to view this API key' };
const REVOKE: Access = { permission: 'api-keys:revoke', refusal: 'You do not have permission to revoke this API key' };
/** Said to anyone but the creator, holders of api-keys:revoke and administrators included. */
const ROLL_REFUSAL = 'You may not roll this API key: only its creator can (a holder of api-keys:revoke can still revoke it)';

/** Rolls that lose a race with another roll of the same key are tried again this often. */
const ROLL_ATTEMPTS = 3;

const notFound = (id: string) => errors.notFound('API key', id);

/** How far up the keys-made-by-keys chain a roll with an API key looks for the calling key. */
const MAX_MAKER_DEPTH = 64;

/** Per answered revoke: the ids of the keys it revoked besides the one named (their audit records). */
const revokedWith = new WeakMap<object, readonly string[]>();

/** The keys a revoke revoked along with the key it answers (none for any other result). */
export function keysRevokedWith(result: unknown): readonly string[] {
  return (typeof result === 'object' && result !== null && revokedWith.get(result)) || [];
}

/**
 * API keys: the rules of the contract's "API keys" section. Every method
 * takes the caller as a plain `Actor`; every query is confined to the
 * caller's tenant, so another tenant's key answers 404. Viewing is allowed to
 * the key's creator and to holders of `api-keys:read`; revoking to the
 * creator and to holders of `api-keys:revoke`; rolling to the creator only.
 * Secrets are made here, answered once, and stored only as SHA-256 hashes.
 */
export class ApiKeyService {
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

  /**
   * Holders of `api-keys:read` see every key of their tenant; users in person
   * the keys they created; an API key without the scope, none (403).
   */
  async list(actor: Actor, args: ApiKeysArgs): Promise<Page<ApiKey>> {
    const seesAll = hasPermission(actor, VIEW.permission);
    if (!seesAll && actor.via.kind !== 'jwt') throw errors.forbidden(`You do not have permission to list API keys (${VIEW.permission})`);
    const filter = {
      ...tenantScope(actor),
      ...(seesAll ? {} : { createdBy: actor.userId }),
      ...(args.status ? statusFilter(args.status, new Date()) : {}),
    };
    const page = await findPage({ find: (pageFilter) => this.model.find(pageFilter).lean<StoredKey[]>() }, filter, args);
    return { ...page, items: page.items.map((key) => this.answered(key)) };
  }

  /**
   * `fields`: the GraphQL fields asked of the key (all when absent); only the
   * stored fields they need are read, and the usage log only when
   * `usageLogs` is asked for (with `includeUsageLogs`).
   */
  async get(actor: Actor, id: string, includeUsageLogs: boolean, fields?: ReadonlySet<string>): Promise<ApiKey> {
    const key = this.answered(await this.readAllowed(actor, id, VIEW, this.projectionFor(fields)));
    if (!includeUsageLogs || (fields && !fields.has('usageLogs'))) return key;
    const { items } = await this.pageUsage(id, { limit: USAGE_LOGS_IN_RECORD });
    return Object.assign(key, { usageLogs: items });
  }

  async usageLogs(actor: Actor, args: { id: string; limit: number; cursor?: string | null }): Promise<Page<ApiKeyUsage>> {
    await this.readAllowed(actor, args.id, VIEW, CHECKED);
    return this.pageUsage(args.id, args);
  }

  /**
   * A key of the caller's tenant (a platform administrator's: of none),
   * created by the caller, with scopes the caller holds. Answers the record
   * and its secret, which is never shown again. Made with an API key, it
   * records that key (`createdByKey`) and stays within its limits
   * (api-key-bounds.ts).
   */
  async create(actor: Actor, args: CreateApiKeyArgs): Promise<ApiKeyWithSecret> {
    // Refuses a caller without a tenant who is no platform administrator.
    tenantScope(actor);
    assertScopesHeld(actor, args.scopes, (named) => `You cannot give an API key ${named} you do not hold`);
    const settings = settingsForCreate(actor, args);
    const callingKey = actor.via.kind === 'api-key' ? actor.via.apiKeyId : null;
    const { secret, keyId, hash } = generateApiKeySecret();
    const key = await this.model.create({
      keyId,
      name: args.name,
      description: args.description ?? null,
      scopes: args.scopes,
      allowedOrigins: [...settings.allowedOrigins],
      allowedIPs: [...settings.allowedIPs],
      expiresAt: settings.expiresAt,
      lastUsedAt: null,
      usageCount: 0,
      rateLimit: settings.rateLimit,
      metadata: args.metadata ?? {},
      tenant_id: actor.tenantId,
      createdBy: actor.userId,
      createdByKey: callingKey,
      updatedBy: actor.userId,
      revokedAt: null,
      revokedBy: null,
      secrets: [{ hash, validUntil: null }],
    });
    // A revoke of the calling key that found its keys before this one was stored would miss it:
    // the calling key, read after the insert, must still be unrevoked, else the new key goes (its secret was never answered).
    if (callingKey && !(await this.model.exists({ _id: toObjectId(callingKey), revokedAt: null }))) {
      await this.model.deleteOne({ _id: key._id });
      throw errors.unauthenticated('API key revoked');
    }
    return answer(key, { key: secret });
  }

  /**
   * Revoked for good, together with every key it created with its
   * credential, and theirs (`createdByKey`), before the answer: a leaked key
   * is shut off with all it made. Revoking again answers the same record,
   * `revokedAt` unchanged: the update only applies to a key not yet revoked,
   * so of two concurrent revokes the first one's instant stays; it revokes
   * any key it created that is still live. `keysRevokedWith(answer)` names
   * the other keys this call revoked.
   */
  async revoke(actor: Actor, id: string): Promise<ApiKeyDocument> {
    const key = await this.findAllowed(actor, id, REVOKE);
    let current: ApiKeyDocument | null = key;
    if (!key.revokedAt) {
      const revoked = await this.model.findOneAndUpdate({ _id: key._id, revokedAt: null }, { $set: revocation(actor) }, { returnDocument: 'after' });
      current = revoked ?? (await this.model.findById(key._id));
    }
    if (!current) throw notFound(id);
    revokedWith.set(current, await this.revokeCreatedBy(key, actor));
    return current;
  }

  /**
   * Revokes the keys `root` created with its credential, and the keys those
   * created, level by level (revoked ones are walked too: their keys may be
   * live after an interrupted revoke). Each key is revoked by an update that
   * applies only while it is live, so exactly the keys this call revoked are
   * answered. They share the root's tenant and creator: whoever may revoke
   * the root may revoke them.
   */
  private async revokeCreatedBy(root: ApiKeyDocument, actor: Actor): Promise<string[]> {
    const revoked: string[] = [];
    const seen = new Set([root._id.toHexString()]);
    let parents = [root._id.toHexString()];
    while (parents.length > 0) {
      const children = await this.model
        .find({ tenant_id: root.tenant_id, createdByKey: trusted({ $in: parents }) }, { _id: 1, revokedAt: 1 })
        .lean<Pick<StoredKey, '_id' | 'revokedAt'>[]>();
      parents = [];
      const live: Types.ObjectId[] = [];
      for (const child of children) {
        const childId = child._id.toHexString();
        if (seen.has(childId)) continue;
        seen.add(childId);
        parents.push(childId);
        if (!child.revokedAt) live.push(child._id);
      }
      const updates = live.map((childId) =>
        this.model.findOneAndUpdate({ _id: childId, revokedAt: null }, { $set: revocation(actor) }, { projection: { _id: 1 } }).lean(),
      );
      for (const updated of await Promise.all(updates)) if (updated) revoked.push(updated._id.toHexString());
    }
    return revoked;
  }

  /**
   * A new secret for the same key (same `_id` and `keyId`, same settings).
   * The previous secret keeps working until now + `gracePeriodSeconds` (not
   * at all with 0); secrets of earlier rolls end then too at the latest, and
   * ended ones are dropped. A revoked or expired key is 409. Only the key's
   * creator rolls it (assertMayRoll), and not with scopes they no longer
   * hold: the new secret acts as the creator, with the key's scopes.
   */
  async roll(actor: Actor, id: string, gracePeriodSeconds: number): Promise<ApiKeyWithSecret> {
    for (let attempt = 0; attempt < ROLL_ATTEMPTS; attempt += 1) {
      const key = await this.findInTenant(actor, id, '+secrets');
      assertMayRoll(actor, key);
      const now = new Date();
      assertRollable(key, now);
      assertScopesHeld(actor, key.scopes, (named) => `You cannot roll an API key with ${named} you do not hold`);
      assertRollWithin(actor, key);
      await this.assertMadeByCallingKey(actor, key);
      const current = key.secrets.find((secret) => secret.validUntil === null);
      const fresh = generateApiKeySecret(key.keyId);
      const secrets = [{ hash: fresh.hash, validUntil: null }, ...secretsAfterRoll(key.secrets, current, now, gracePeriodSeconds)];
      // Applies only while the key is live and its current secret is the one read: a concurrent roll or revoke wins.
      const rolled = await this.model.findOneAndUpdate(
        { _id: key._id, ...liveAt(now), ...(current ? { secrets: trusted({ $elemMatch: { hash: current.hash, validUntil: null } }) } : {}) },
        { $set: { secrets, updatedBy: actor.userId } },
        { returnDocument: 'after' },
      );
      if (rolled) return answer(rolled, { key: fresh.secret });
    }
    throw new AppError('CONFLICT', 'The API key was changed while it was being rolled; try again', {
      errors: [{ field: 'id', rule: 'concurrentChange', message: 'The API key was changed while it was being rolled' }],
    });
  }

  /**
   * With an API key credential, a roll reaches only that key and the keys it
   * made (and theirs): a revoke cascades through `createdByKey`, so every
   * secret a leaked key can mint must be one its revoke ends.
   */
  private async assertMadeByCallingKey(actor: Actor, key: ApiKeyDocument): Promise<void> {
    if (actor.via.kind !== 'api-key') return;
    const calling = actor.via.apiKeyId;
    let maker: string | null = String(key._id) === calling ? calling : key.createdByKey;
    // Each step reads one key up the chain; a chain is as deep as keys made by keys made by keys.
    for (let depth = 0; maker !== null && depth < MAX_MAKER_DEPTH; depth += 1) {
      if (maker === calling) return;
      const above: { createdByKey?: string | null } | null = await this.model.findOne({ _id: toObjectId(maker) }, { createdByKey: 1 }).lean();
      maker = above?.createdByKey ?? null;
    }
    throw errors.forbidden('An API key can roll only itself and the keys it made (their secrets must end when it is revoked)');
  }

  /** The key, when the caller's tenant holds it (else 404) and the caller created it or holds the permission (else 403). */
  private async findAllowed(actor: Actor, id: string, access: Access, select?: string): Promise<ApiKeyDocument> {
    const key = await this.findInTenant(actor, id, select);
    assertMayAccess(actor, key, access);
    return key;
  }

  /** The key, when the caller's tenant holds it (else 404); who may act on it is the caller's to check. */
  private async findInTenant(actor: Actor, id: string, select?: string): Promise<ApiKeyDocument> {
    const query = this.model.findOne({ _id: toObjectId(id), ...tenantScope(actor) });
    const key = await (select ? query.select(select) : query);
    if (!key) throw notFound(id);
    return key;
  }

  /**
   * As `findAllowed`, read as a plain record for answers (no document),
   * `projection` at least holding `createdBy`. Without one the whole stored
   * record is read through the driver: any projection, the schema's own
   * leaving out the secrets and the window included, makes the engine decode
   * and re-encode the record, which cost a third of the engine's CPU per key
   * read. The secret hashes thus reach this process (as they do on every
   * API-key request) and `answered` drops them at once.
   */
  private async readAllowed(actor: Actor, id: string, access: Access, projection?: Record<string, 1>): Promise<StoredKey> {
    const filter = { _id: toObjectId(id), ...tenantScope(actor) };
    const key = projection
      ? await this.model.findOne(filter, projection).lean<StoredKey>()
      : ((await this.model.collection.findOne(filter)) as StoredKey | null);
    if (!key) throw notFound(id);
    assertMayAccess(actor, key, access);
    return key;
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

  /**
   * A page of a key's uses, most recent first: ordered by `at`, then `_id`
   * (uses are written in batches, so `at`, not insertion, is the order).
   * The cursor is the last entry's id; an entry the retention has removed
   * meanwhile ends the walk (everything older is gone too).
   */
  private async pageUsage(apiKeyId: string, { limit, cursor }: { limit: number; cursor?: string | null }): Promise<Page<ApiKeyUsage>> {
    const filter: Record<string, unknown> = { apiKeyId };
    const afterId = cursor ? decodeCursor(cursor) : null;
    if (afterId) {
      const last = await this.usage.findOne({ _id: toObjectId(afterId), apiKeyId }, { at: 1 }).lean();
      if (!last) return { items: [], nextCursor: null };
      filter.$or = [{ at: trusted({ $lt: last.at }) }, { at: last.at, _id: trusted({ $lt: last._id }) }];
    }
    const found = await this.usage.find(filter).sort({ at: -1, _id: -1 }).limit(limit + 1).lean<StoredUsage[]>();
    // Entries are answered as stored, with the schema's defaults (lean: no documents built).
    const items = found.slice(0, limit).map((entry) => this.usage.applyDefaults(entry) as StoredUsage);
    const lastItem = items.at(-1);
    return { items, nextCursor: found.length > limit && lastItem ? encodeCursor(lastItem._id) : null };
  }
}

/** The creator in person, or the permission (else 403): an API key acts only within its scopes. */
function assertMayAccess(actor: Actor, key: Pick<ApiKey, 'createdBy'>, access: Access): void {
  if (!isUserInPerson(actor, key.createdBy) && !hasPermission(actor, access.permission)) throw errors.forbidden(access.refusal);
}

/**
 * Only the key's creator rolls it: in person, or with an API key holding
 * `api-keys:revoke` (and then only that key or one it made:
 * assertMadeByCallingKey). The new secret acts as the creator; handed to
 * anyone else (a holder of api-keys:revoke, an administrator) it would keep
 * working after they lost the right that let them roll it.
 */
function assertMayRoll(actor: Actor, key: Pick<ApiKey, 'createdBy'>): void {
  const creator = actor.userId === key.createdBy;
  if (!creator || (actor.via.kind === 'api-key' && !hasPermission(actor, REVOKE.permission))) throw errors.forbidden(ROLL_REFUSAL);
}

/** 403 naming every scope the caller lacks; `sentence` words it (`the scope 'x'` / `the scopes 'x', 'y'`). */
function assertScopesHeld(actor: Actor, scopes: readonly string[], sentence: (named: string) => string): void {
  const missing = scopes.filter((scope) => !hasPermission(actor, scope));
  if (missing.length === 0) return;
  const listed = missing.map((scope) => `'${scope}'`).join(', ');
  throw errors.forbidden(sentence(`${missing.length === 1 ? 'the scope' : 'the scopes'} ${listed}`));
}

/** What a revoke sets on each key it revokes. */
function revocation(actor: Actor) {
  return { revokedAt: new Date(), revokedBy: actor.userId, updatedBy: actor.userId };
}

function assertRollable(key: ApiKeyDocument, now: Date): void {
  const status = apiKeyStatusAt(key, now);
  if (status === ApiKeyStatus.active) return;
  const message = status === ApiKeyStatus.revoked ? 'This API key is revoked; a revoked key cannot be rolled' : 'This API key has expired; an expired key cannot be rolled';
  throw new AppError('CONFLICT', message, { errors: [{ field: 'status', rule: status, message }] });
}

/**
 * The secrets a key keeps besides the new one: the previous current secret
 * until now + grace (dropped with grace 0), earlier rolled ones until the
 * same instant at the latest; ended ones go.
 */
function secretsAfterRoll(secrets: readonly ApiKeySecret[], current: ApiKeySecret | undefined, now: Date, graceSeconds: number): ApiKeySecret[] {
  const graceEnd = new Date(now.getTime() + graceSeconds * 1000);
  const earlier = secrets
    .filter((secret) => secret !== current && secret.validUntil !== null)
    .map((secret) => ({ hash: secret.hash, validUntil: new Date(Math.min(secret.validUntil!.getTime(), graceEnd.getTime())) }));
  const kept = current ? [{ hash: current.hash, validUntil: graceEnd }, ...earlier] : earlier;
  return kept.filter((secret) => secret.validUntil.getTime() > now.getTime());
}

/**
 * The record as a plain object with what the answer adds (`key`,
 * `usageLogs`); the `id` virtual is computed into it, and the stored
 * secret hashes and rate window are left out.
 */
function answer<T extends object>(key: ApiKeyDocument, extras: T): ApiKey & T {
  const { secrets: _secrets, rateWindow: _rateWindow, ...record } = key.toObject({ virtuals: true }) as ApiKey;
  return Object.assign(record as ApiKey, extras);
}
