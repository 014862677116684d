import type { Types } from 'mongoose';
import {
  generateApiKeySecret,
  assertTenantScope,
  hasPermission,
  isUserInPerson,
  tenantScope,
  type Actor,
  type ApiKeyOutcome,
  type KeyVerification,
} from '../auth/index.js';
import { AppError, errors } from '../errors/index.js';
import { assertVersion, type Page } from '../shared/index.js';
import type { ApiKeyUsage } from './api-key-usage.model.js';
import type {
  ApiKeysArgs,
  CreateApiKeyArgs,
  RateLimitPreviewArgs,
  UpdateApiKeyArgs,
  UsageArgs,
  UsageDaysArgs,
  VerifyApiKeyArgs,
} from './api-key.inputs.js';
import { permissionsOfOperation } from '../graphql/index.js';
import { bucketStart, fillBuckets, refusedByLimit } from './api-key-usage-buckets.js';
import {
  ApiKey,
  type ApiKeySecret,
  ApiKeyStatus,
  apiKeyStatusAt,
  type ApiKeySummary,
  type StatusFields,
  statusFilter,
  USAGE_LOGS_IN_RECORD,
} from './api-key.model.js';
import { answer, type ApiKeyChanges, type ApiKeyDocument, type ApiKeyRecords, type MadeKey, type Revocation } from './api-key.store.js';
import {
  type ApiKeyScopeReport,
  type ApiKeyUsageReport,
  type ApiKeyVerification,
  ApiKeyVerificationCode,
  type ApiKeyWithSecret,
  type LineageChild,
  type RateLimitPreview,
} from './api-key.types.js';
import { assertRollWithin, settingsForCreate, settingsForUpdate } from './api-key-bounds.js';

/** Who may do what to a key besides its creator: the permission, and the refusal for anyone else of the tenant. */
interface Access {
  permission: 'api-keys:read' | 'api-keys:revoke' | 'api-keys:update';
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

/** What a revoke did: the key named, as stored after it, and the ids of the other keys it revoked (each gets its own audit record). */
export interface RevokedApiKey {
  key: ApiKeyDocument;
  alsoRevoked: readonly string[];
}

/**
 * API keys: the rules of the contract's "API keys" section; the reads and
 * writes are its store's (ApiKeyRecords). Every method takes the caller as a
 * plain `Actor`; every query is confined to the caller's tenant, so another
 * tenant's key answers 404. Viewing is allowed to the key's creator and to
 * holders of `api-keys:read`; revoking to the creator and to holders of
 * `api-keys:revoke`; rolling to the creator only. Secrets are made here,
 * answered once, and stored only as SHA-256 hashes.
 */
export class ApiKeyService {
  constructor(private readonly records: ApiKeyRecords) {}

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
    return this.records.page(filter, args);
  }

  /**
   * `fields`: the GraphQL fields asked of the key (all when absent); only the
   * stored fields they need are read, and the usage log only when
   * `usageLogs` is asked for (with `includeUsageLogs`).
   */
  async get(actor: Actor, id: string, includeUsageLogs: boolean, fields?: ReadonlySet<string>): Promise<ApiKey> {
    const key = found(await this.records.findAnswer(id, tenantScope(actor), fields), id);
    assertMayAccess(actor, key, VIEW);
    if (!includeUsageLogs || (fields && !fields.has('usageLogs'))) return key;
    const { items } = await this.records.usagePage(id, { limit: USAGE_LOGS_IN_RECORD });
    return Object.assign(key, { usageLogs: items });
  }

  async usageLogs(actor: Actor, args: { id: string; limit: number; cursor?: string | null }): Promise<Page<ApiKeyUsage>> {
    assertMayAccess(actor, found(await this.records.findCreator(args.id, tenantScope(actor)), args.id), VIEW);
    return this.records.usagePage(args.id, args);
  }

  /**
   * A key of the caller's tenant (a platform administrator's: of none),
   * created by the caller, with scopes the caller holds. Answers the record
   * and its secret, which is never shown again. Made with an API key, it
   * records that key (`createdByKey`) and stays within its limits
   * (api-key-bounds.ts).
   */
  async create(actor: Actor, args: CreateApiKeyArgs): Promise<ApiKeyWithSecret> {
    assertTenantScope(actor);
    assertScopesHeld(actor, args.scopes, (named) => `You cannot give an API key ${named} you do not hold`);
    const settings = settingsForCreate(actor, args);
    const callingKey = actor.via.kind === 'api-key' ? actor.via.apiKeyId : null;
    const { secret, keyId, hash } = generateApiKeySecret();
    const key = await this.records.insert({
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
      disabledAt: null,
      disabledReason: null,
      disabledWith: null,
      secrets: [{ hash, validUntil: null }],
    });
    // A revoke or disable of the calling key that found its keys before this one was stored would miss it:
    // the calling key, read after the insert, must still be unrevoked and enabled, else the new key goes
    // (its secret was never answered).
    const maker = callingKey ? await this.records.makerState(callingKey) : 'active';
    if (maker !== 'active') {
      await this.records.remove(key._id);
      throw errors.unauthenticated(maker === 'disabled' ? 'API key disabled' : 'API key revoked');
    }
    return answer(key, { key: secret });
  }

  /**
   * Revoked for good, together with every key it created with its
   * credential, and theirs (`createdByKey`), before the answer: a leaked key
   * is shut off with all it made. Revoking again answers the same record,
   * `revokedAt` unchanged: the update only applies to a key not yet revoked,
   * so of two concurrent revokes the first one's instant stays; it revokes
   * any key it created that is still live. Answers the key and the other
   * keys this call revoked (`alsoRevoked`).
   */
  async revoke(actor: Actor, id: string): Promise<RevokedApiKey> {
    const key = await this.findAllowed(actor, id, REVOKE);
    // A REST If-Match: a stale one ends here, before the keys it made are walked.
    assertVersion(key.updatedAt);
    let current: ApiKeyDocument | null = key;
    if (!key.revokedAt) current = (await this.records.revokeIfUnrevoked(key._id, revocation(actor))) ?? (await this.records.findById(key._id));
    if (!current) throw notFound(id);
    return { key: current, alsoRevoked: await this.revokeMadeBy(key, actor) };
  }

  /**
   * Revokes every key the user `userId` of `tenantId` created, in person or
   * through a key (a key made with a key has the same creator, so this holds
   * every key of a lineage the user started), each only while unrevoked:
   * deleteUser's cascade (the users area's UserApiKeys port, wired in
   * src/service.ts). Answers the ids this call revoked.
   */
  async revokeEveryKeyOf(tenantId: string | null, userId: string, revokedBy: string): Promise<string[]> {
    const ids = await this.records.findUnrevokedOfCreator(tenantId, userId);
    return this.records.revokeEachUnrevoked(ids, { revokedAt: new Date(), revokedBy, updatedBy: revokedBy });
  }

  /**
   * Revokes the keys `root` created with its credential, and the keys those
   * created (walkMadeBy; revoked ones are walked too: their keys may be live
   * after an interrupted revoke). Each key is revoked by an update that
   * applies only while it is live, so exactly the keys this call revoked are
   * answered. They share the root's tenant and creator: whoever may revoke
   * the root may revoke them.
   */
  private revokeMadeBy(root: ApiKeyDocument, actor: Actor): Promise<string[]> {
    return this.changeMadeBy(
      root,
      (key) => !key.revokedAt,
      (ids) => this.records.revokeEachUnrevoked(ids, revocation(actor)),
    );
  }

  /**
   * The one walk of the keys `root` made, and theirs (walkMadeBy), level by
   * level: `change` is given the ids of a level's keys that `pick` keeps, and
   * answers the ids it changed; all of them are answered.
   */
  private async changeMadeBy(root: ApiKeyDocument, pick: (key: MadeKey) => boolean, change: (ids: Types.ObjectId[]) => Promise<string[]>): Promise<string[]> {
    const changed: string[] = [];
    for (const level of (await this.walkMadeBy(root)).levels) {
      changed.push(...(await change(level.filter(pick).map((key) => key._id))));
    }
    return changed;
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
      const key = found(await this.records.findDocument(id, tenantScope(actor), '+secrets'), id);
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
      const rolled = await this.records.replaceSecrets(key, current, now, secrets, actor.userId);
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
      maker = await this.records.findMaker(maker);
    }
    throw errors.forbidden('An API key can roll only itself and the keys it made (their secrets must end when it is revoked)');
  }

  // Usage over time, from the hourly rollups.

  /** Every bucket of [from, to) (the arguments' rules bound it to 1,000), from the hourly rollups; as viewing the key. */
  async usage(actor: Actor, { id, granularity, from, to }: UsageArgs): Promise<ApiKeyUsageReport> {
    await this.assertMayView(actor, id);
    const hours = await this.records.rollups(id, bucketStart(granularity, from), to);
    return { buckets: fillBuckets(granularity, from, to, hours) };
  }

  /** The hours and requests of the last `days` a limit of `rateLimit` per hour would have refused; as viewing the key. */
  async rateLimitPreview(actor: Actor, { id, rateLimit, days }: RateLimitPreviewArgs, retentionSeconds: number): Promise<RateLimitPreview> {
    assertDaysWithin(days, retentionSeconds);
    await this.assertMayView(actor, id);
    const now = new Date();
    const hours = await this.records.rollups(id, new Date(now.getTime() - days * 86_400_000), now);
    return { rateLimit, days, ...refusedByLimit(rateLimit, hours) };
  }

  /**
   * What the key's logged uses of the last `days` needed: the permissions the
   * reached operations' `@Authorized` name (the resolvers' metadata, not a
   * table), against the key's scopes; as viewing the key.
   */
  async scopeReport(actor: Actor, { id, days }: UsageDaysArgs, retentionSeconds: number): Promise<ApiKeyScopeReport> {
    assertDaysWithin(days, retentionSeconds);
    const key = found(await this.records.findScopes(id, tenantScope(actor)), id);
    assertMayAccess(actor, key, VIEW);
    const operations = (await this.records.operationsUsed(id, new Date(Date.now() - days * 86_400_000))).sort();
    const needed = new Set(operations.flatMap((operation) => permissionsOfOperation(operation)));
    const held = new Set(key.scopes ?? []);
    const sorted = (scopes: Iterable<string>) => [...scopes].sort();
    return {
      days,
      operations,
      neededScopes: sorted(needed),
      unusedScopes: sorted([...held].filter((scope) => !needed.has(scope))),
      missingScopes: sorted([...needed].filter((scope) => !held.has(scope))),
      suggestedScopes: sorted([...needed].filter((scope) => held.has(scope))),
    };
  }

  /**
   * Another service checks a key it received: the credential's own check
   * (a verification is a use of the key: counted, rate-limited, logged as
   * `verify`), then `requiredScopes` against what the key acts with. Only
   * keys of the caller's tenant are found (a platform caller's: any); a key
   * the check does not identify is NOT_FOUND. The answer is the outcome, never an error.
   */
  async verify(actor: Actor, args: VerifyApiKeyArgs, verification: KeyVerification | undefined): Promise<ApiKeyVerification> {
    if (!verification) throw new Error('API key verification is not served here');
    // The caller's tenant as every read confines it (a tenantless non-administrator is 403, as elsewhere).
    const { tenant_id: tenant } = tenantScope(actor);
    const within = tenant === undefined ? undefined : { tenantId: tenant };
    const outcome = await verification.check(args.key, { ip: args.ip ?? '', origin: args.origin ?? undefined }, within);
    let code = ApiKeyVerificationCode[outcome.code];
    if (outcome.actor) {
      const acting = outcome.actor;
      // As the auth checker refuses a request for a permission the key lacks (403), after the use was counted.
      if ((args.requiredScopes ?? []).some((scope) => !hasPermission(acting, scope))) code = ApiKeyVerificationCode.FORBIDDEN;
      verification.recordUse(outcome, code === ApiKeyVerificationCode.VALID ? 200 : 403);
    }
    verification.answered(code);
    return verificationAnswer(code, outcome);
  }

  private async assertMayView(actor: Actor, id: string): Promise<void> {
    assertMayAccess(actor, found(await this.records.findCreator(id, tenantScope(actor)), id), VIEW);
  }

  /**
   * The keys made with `root`'s credential (`createdByKey`), and theirs, level
   * by level, each key once. The one walk of a revoke, its dry run and a
   * lineage; a lineage bounds it (`bounds`), and `truncated` says a bound cut it.
   */
  private async walkMadeBy(root: ApiKeyDocument, bounds: LineageBounds = UNBOUNDED): Promise<MadeByWalk> {
    const levels: MadeKey[][] = [];
    const seen = new Set([root._id.toHexString()]);
    let makers = [root._id.toHexString()];
    while (makers.length > 0) {
      if (levels.length === bounds.maxDepth) return { levels, truncated: true };
      const room = bounds.maxKeys - (seen.size - 1);
      // One more than fits: its presence says the walk was cut.
      const read = await this.records.findMadeBy(root.tenant_id, makers, Number.isFinite(room) ? room + 1 : 0);
      const made = read.filter((key) => !seen.has(key._id.toHexString()));
      const kept = made.slice(0, room);
      for (const key of kept) seen.add(key._id.toHexString());
      if (kept.length > 0) levels.push(kept);
      if (kept.length < made.length) return { levels, truncated: true };
      makers = kept.map((key) => key._id.toHexString());
    }
    return { levels, truncated: false };
  }

  /**
   * `apiKeyLineage`: the key and the keys made with it, and theirs, as a
   * tree; read as viewing the key (404 in another tenant, else 403 without
   * the right). At most LINEAGE_BOUNDS.maxDepth levels below the key and
   * LINEAGE_BOUNDS.maxKeys keys; `truncated` on the root says a bound cut it.
   */
  async lineage(actor: Actor, id: string): Promise<ApiKeyLineageNode> {
    const root = await this.findAllowed(actor, id, VIEW);
    const { levels, truncated } = await this.walkMadeBy(root, LINEAGE_BOUNDS);
    const now = new Date();
    const childrenOf = new Map<string, LineageChild[]>([[root._id.toHexString(), []]]);
    for (const key of levels.flat()) {
      const children: LineageChild[] = [];
      const { lastUsedAt, ...summary } = summaryOf(key, now);
      childrenOf.set(summary.id, children);
      childrenOf.get(key.createdByKey!)?.push({ ...summary, lastUsedAt: lastUsedAt?.toISOString() ?? null, children });
    }
    return { ...summaryOf(root, now), children: childrenOf.get(root._id.toHexString())!, truncated };
  }

  /**
   * `revokeApiKey(id, dryRun: true)`: what the revoke would end (the key
   * while live, and every live key the walk reaches), with the key as it is;
   * as revoking it for who may (404/403), and it changes nothing.
   */
  async revokeDryRun(actor: Actor, id: string): Promise<ApiKey & { wouldRevoke: ApiKeySummary[] }> {
    const key = await this.findAllowed(actor, id, REVOKE);
    const now = new Date();
    const live = [key, ...(await this.walkMadeBy(key)).levels.flat()].filter((made) => !made.revokedAt);
    return answer(key, { wouldRevoke: live.map((made) => summaryOf(made, now)) });
  }

  /** The key, when the caller's tenant holds it (else 404) and the caller created it or holds the permission (else 403). */
  private async findAllowed(actor: Actor, id: string, access: Access): Promise<ApiKeyDocument> {
    const key = found(await this.records.findDocument(id, tenantScope(actor)), id);
    assertMayAccess(actor, key, access);
    return key;
  }

  /**
   * Changes the given settings of a key (partial; null clears), never its
   * secret. Its creator in person or a holder of `api-keys:update` may; a
   * revoked key is 409. The same bounds as creating: no scope the caller
   * does not hold, and for a caller acting with an API key, the key as it
   * will be stays within that key (api-key-bounds.ts; 403 naming each field).
   * Stored through the model, so the key's next use anywhere reads the change
   * (at once here, within a second elsewhere: GRANT_MAX_AGE_MS).
   */
  async update(actor: Actor, { id, ...patch }: UpdateApiKeyArgs): Promise<ApiKeyDocument> {
    const key = await this.findAllowed(actor, id, UPDATE);
    assertNotRevoked(key, 'updated');
    // A user is held to the scopes given; a key acting, to the key's scopes as they will be (as its other settings).
    assertScopesWithin(actor, patch.scopes ?? (actor.via.kind === 'api-key' ? key.scopes : []));
    const settings = settingsForUpdate(actor, key, patch);
    const changes: ApiKeyChanges = { updatedBy: actor.userId };
    if (patch.name !== undefined) changes.name = patch.name;
    if (patch.description !== undefined) changes.description = patch.description;
    if (patch.scopes !== undefined) changes.scopes = patch.scopes;
    if (patch.metadata !== undefined) changes.metadata = patch.metadata ?? {};
    for (const field of BOUNDED_SETTINGS) if (patch[field] !== undefined) Object.assign(changes, { [field]: settings[field] });
    const updated = await this.records.updateUnrevoked(key._id, changes);
    if (updated) return updated;
    // Revoked (or removed) between the read and the write.
    assertNotRevoked(found(await this.records.findById(key._id), id), 'updated');
    throw notFound(id);
  }

  /**
   * Pauses a key (status `disabled`) until enabled again; as revoking needs.
   * The keys it made with its credential, and theirs, are paused with it
   * (`disabledWith` names it): a paused secret cannot act, so neither may
   * what it minted, nor re-enable it. Disabling a disabled key answers it
   * unchanged (its first disabledAt and reason stay), unless the pause came
   * through another key: it becomes the key's own. A revoked key is 409.
   */
  async disable(actor: Actor, id: string, reason: string | null): Promise<{ key: ApiKeyDocument; alsoDisabled: string[] }> {
    const key = await this.findAllowed(actor, id, DISABLE);
    // A REST If-Match: a stale one is 412 also when nothing is written (already disabled).
    assertVersion(key.updatedAt);
    assertNotRevoked(key, 'disabled');
    if (key.disabledAt && !key.disabledWith) return { key, alsoDisabled: [] };
    const disabled = key.disabledWith
      ? await this.records.ownPause(key._id, key.disabledWith, reason ?? null, actor.userId)
      : await this.records.disableIfEnabled(key._id, reason ?? null, actor.userId);
    if (!disabled) {
      const current = found(await this.records.findById(key._id), id);
      assertNotRevoked(current, 'disabled');
      return { key: current, alsoDisabled: [] };
    }
    return { key: disabled, alsoDisabled: await this.disableMadeBy(disabled, reason ?? null, actor) };
  }

  /**
   * Ends a pause (status `active` again, disabledAt, disabledReason and
   * disabledWith cleared), and resumes the keys this key's disable paused;
   * as revoking needs. A revoked or expired key is 409; an enabled one
   * answers unchanged.
   */
  async enable(actor: Actor, id: string): Promise<{ key: ApiKeyDocument; alsoEnabled: string[] }> {
    const key = await this.findAllowed(actor, id, ENABLE);
    assertVersion(key.updatedAt);
    const now = new Date();
    assertEnablable(key, now);
    if (!key.disabledAt) return { key, alsoEnabled: [] };
    const enabled = await this.records.enableIfDisabled(key._id, now, actor.userId);
    if (!enabled) {
      const current = found(await this.records.findById(key._id), id);
      assertEnablable(current, new Date());
      return { key: current, alsoEnabled: [] };
    }
    const rootId = enabled._id.toHexString();
    const alsoEnabled = await this.changeMadeBy(
      enabled,
      (made) => made.disabledWith === rootId,
      (ids) => this.records.enableEachPausedWith(ids, rootId, now, actor.userId),
    );
    return { key: enabled, alsoEnabled };
  }

  /** Pauses the live keys `root` made, and theirs (the revoke's walk), as reached by its disable. */
  private disableMadeBy(root: ApiKeyDocument, reason: string | null, actor: Actor): Promise<string[]> {
    return this.changeMadeBy(
      root,
      (made) => !made.revokedAt && !made.disabledAt,
      (ids) => this.records.disableEachEnabled(ids, root._id.toHexString(), reason, actor.userId),
    );
  }
}

const UPDATE: Access = { permission: 'api-keys:update', refusal: 'You do not have permission to update this API key' };
const DISABLE: Access = { permission: 'api-keys:revoke', refusal: 'You do not have permission to disable this API key' };
const ENABLE: Access = { permission: 'api-keys:revoke', refusal: 'You do not have permission to enable this API key' };

/** The settings the calling key's bounds apply to (api-key-bounds.ts). */
const BOUNDED_SETTINGS = ['expiresAt', 'rateLimit', 'allowedIPs', 'allowedOrigins'] as const;

/** 409 for a revoked key: nothing but reading it is left. */
function assertNotRevoked(key: Pick<ApiKey, 'revokedAt'>, verb: 'updated' | 'disabled'): void {
  if (!key.revokedAt) return;
  const message = `This API key is revoked; a revoked key cannot be ${verb}`;
  throw new AppError('CONFLICT', message, { errors: [{ field: 'status', rule: ApiKeyStatus.revoked, message }] });
}

/** 409 for a key enabling cannot make active: a revoked or expired one. */
function assertEnablable(key: StatusFields, now: Date): void {
  const status = apiKeyStatusAt(key, now);
  if (status !== ApiKeyStatus.revoked && status !== ApiKeyStatus.expired) return;
  const message = `This API key is ${status}; a${status === ApiKeyStatus.expired ? 'n' : ''} ${status} key cannot be enabled`;
  throw new AppError('CONFLICT', message, { errors: [{ field: 'status', rule: status, message }] });
}

/** 403 naming `scopes` when the caller (a key: its scopes) lacks one of them: an update gives a key nothing its caller does not hold. */
function assertScopesWithin(actor: Actor, scopes: readonly string[]): void {
  const missing = scopes.filter((scope) => !hasPermission(actor, scope));
  if (missing.length === 0) return;
  const message = `You cannot give an API key ${missing.length === 1 ? 'the scope' : 'the scopes'} ${missing.map((scope) => `'${scope}'`).join(', ')} you do not hold`;
  throw errors.forbiddenFields(message, [{ field: 'scopes', rule: 'heldByCaller', message }]);
}

/** `days` looks back no further than the rollups are kept (USAGE_ROLLUP_RETENTION): 400 naming it. */
function assertDaysWithin(days: number, retentionSeconds: number): void {
  const most = Math.max(1, Math.floor(retentionSeconds / 86_400));
  if (days > most) throw errors.invalidField('days', 'max', `days must be an integer from 1 to ${most} (the usage rollups are kept ${most} days)`);
}

/** The key read, else 404. */
function found<T>(key: T | null, id: string): T {
  if (!key) throw notFound(id);
  return key;
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
function revocation(actor: Actor): Revocation {
  return { revokedAt: new Date(), revokedBy: actor.userId, updatedBy: actor.userId };
}

function assertRollable(key: ApiKeyDocument, now: Date): void {
  const status = apiKeyStatusAt(key, now);
  if (status === ApiKeyStatus.active) return;
  const message = {
    [ApiKeyStatus.revoked]: 'This API key is revoked; a revoked key cannot be rolled',
    [ApiKeyStatus.expired]: 'This API key has expired; an expired key cannot be rolled',
    [ApiKeyStatus.disabled]: 'This API key is disabled; enable it before rolling it',
  }[status];
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

/** How far a walk of keys made by keys goes: levels below the root, keys in all. */
interface LineageBounds {
  maxDepth: number;
  maxKeys: number;
}

const UNBOUNDED: LineageBounds = { maxDepth: Infinity, maxKeys: Infinity };
/** What a lineage shows at most: deeper or larger trees are cut, and say so (`truncated`). */
export const LINEAGE_BOUNDS: LineageBounds = { maxDepth: 10, maxKeys: 500 };

interface MadeByWalk {
  /** Each level's keys, the root's own first. */
  levels: MadeKey[][];
  /** A bound stopped the walk before its end. */
  truncated: boolean;
}

export interface ApiKeyLineageNode extends ApiKeySummary {
  children: LineageChild[];
  truncated: boolean;
}

function summaryOf(key: Pick<MadeKey, '_id' | 'name' | 'lastUsedAt'> & StatusFields, now: Date): ApiKeySummary {
  return { id: key._id.toHexString(), name: key.name, status: apiKeyStatusAt(key, now), lastUsedAt: key.lastUsedAt ?? null };
}

/** verifyApiKey's answer: the key's fields once identified, its window once the use was counted. */
function verificationAnswer(code: ApiKeyVerificationCode, { key, actor, rateLimit }: ApiKeyOutcome): ApiKeyVerification {
  return {
    valid: code === ApiKeyVerificationCode.VALID,
    code,
    id: key?.id ?? null,
    keyId: key?.keyId ?? null,
    tenant_id: key?.tenantId ?? null,
    name: key?.name ?? null,
    scopes: actor ? [...actor.permissions] : [...(key?.scopes ?? [])],
    expiresAt: key?.expiresAt ?? null,
    ratelimit: rateLimit && { limit: rateLimit.limit, remaining: rateLimit.remaining, reset: rateLimit.resetSeconds },
  };
}
