import type { Types } from 'mongoose';
import type { ApiKeyCredentialRecord, ApiKeyStore, ApiKeyUse, CountedApiKeyUse } from '../auth/index.js';
import { isObjectIdString, toObjectId } from '../shared/index.js';
import { createUseGrants, type GrantOperations } from './api-key-grants.js';
import type { Logger } from '../logger.js';
import { ApiKeyUsageModel } from './api-key-usage.model.js';
import { ApiKeyUsageRollupModel, HOUR_MS, type UsageOutcome } from './api-key-usage-rollup.model.js';
import { ApiKeyModel, liveAt, type ApiKey, type ApiKeySecret, type RateWindow } from './api-key.model.js';

export interface ApiKeyStoreOptions {
  /** How long a usage-log entry is kept (its `expireAt`, which a TTL index honours). */
  usageLogRetentionSeconds: number;
  /** How long an hourly usage rollup is kept (its `expireAt`); default 400 days. */
  usageRollupRetentionSeconds?: number;
  /** Told when a grant's unused uses could not be given back. */
  logger?: Pick<Logger, 'warn'>;
}

/** The stored fields the credential reads, secrets included (they are `select: false` everywhere else). */
const CREDENTIAL_FIELDS = {
  keyId: 1,
  tenant_id: 1,
  createdBy: 1,
  scopes: 1,
  allowedOrigins: 1,
  allowedIPs: 1,
  expiresAt: 1,
  revokedAt: 1,
  disabledAt: 1,
  name: 1,
  rateLimit: 1,
  secrets: 1,
  rateWindow: 1,
} as const;

/** A stored key as the driver answers it with that projection (older records may lack the lists). */
type StoredCredential = Omit<Pick<ApiKey, keyof typeof CREDENTIAL_FIELDS>, 'secrets' | 'rateWindow'> & {
  _id: Types.ObjectId;
  secrets?: ApiKeySecret[];
  rateWindow?: RateWindow | null;
};

/** The store, and what the service does with it on shutdown. */
export interface ApiKeyStoreHandle extends ApiKeyStore {
  /** Gives back the uses granted to this instance and not used (call before closing the database). */
  close(): Promise<void>;
}

const keys = () => ApiKeyModel.collection;
const CREDENTIAL_OPTIONS = { returnDocument: 'after', projection: CREDENTIAL_FIELDS } as const;

/** The filter of a key live at `at`, not disabled, that accepts the secret whose hash is `secretHash`. */
function accepting(keyId: string, secretHash: string, at: Date) {
  return {
    keyId,
    ...liveAt(at),
    // null also matches a key stored before disabledAt existed.
    disabledAt: null,
    secrets: { $elemMatch: { hash: secretHash, $or: [{ validUntil: null }, { validUntil: { $gt: at } }] } },
  };
}

function counted(found: unknown): CountedApiKeyUse | null {
  if (!found) return null;
  const stored = found as StoredCredential;
  return { key: toCredentialRecord(stored), usedInWindow: stored.rateWindow?.count ?? 1 };
}

/** The key's uses counted in its window, atomically with the check of the key and the secret (the grants' database side). */
const grantOperations: GrantOperations = {
  async countOne(keyId, secretHash, at, windowStart) {
    const filter = accepting(keyId, secretHash, at);
    const options = CREDENTIAL_OPTIONS;
    // Each is one atomic findAndModify whose filter checks the key and the
    // secret. Nearly every use falls in the window already started: a plain
    // $inc counts it (cheaper for the database than a pipeline update).
    // Otherwise (the first use of the hour, or a refusal) the pipeline
    // counts the use in the window, starting a new one at 1. A stored
    // window that started later (an instance whose clock is ahead began
    // it) is counted into, never restarted: instances with skewed clocks
    // share one count.
    const found =
      (await keys().findOneAndUpdate({ ...filter, 'rateWindow.start': windowStart }, { $inc: { 'rateWindow.count': 1 } }, options)) ??
      (await keys().findOneAndUpdate(
        filter,
        [
          {
            $set: {
              rateWindow: {
                $cond: {
                  if: { $gte: ['$rateWindow.start', windowStart] },
                  then: { start: '$rateWindow.start', count: { $add: ['$rateWindow.count', 1] } },
                  else: { start: windowStart, count: 1 },
                },
              },
            },
          },
        ],
        options,
      ));
    return counted(found);
  },

  async countMany(keyId, secretHash, at, windowStart, size, rateLimit) {
    // Only into the window already started, and only while the count stays within the limit the grant was sized by.
    const filter = { ...accepting(keyId, secretHash, at), rateLimit, 'rateWindow.start': windowStart, 'rateWindow.count': { $lte: rateLimit - size } };
    return counted(await keys().findOneAndUpdate(filter, { $inc: { 'rateWindow.count': size } }, CREDENTIAL_OPTIONS));
  },

  async giveBack(keyId, windowStart, uses) {
    await keys().updateOne({ keyId, 'rateWindow.start': windowStart, 'rateWindow.count': { $gte: uses } }, { $inc: { 'rateWindow.count': -uses } });
  },
};

/**
 * The api-keys area's side of auth's `ApiKeyStore` port: what the API key
 * credential reads and writes. It works on the driver's collections (no
 * mongoose timestamps: a use is not an update of the key). Uses of a busy key
 * are counted in grants (api-key-grants.ts).
 */
export function createApiKeyStore({ usageLogRetentionSeconds, usageRollupRetentionSeconds = DEFAULT_ROLLUP_RETENTION_SECONDS, logger }: ApiKeyStoreOptions): ApiKeyStoreHandle {
  const grants = createUseGrants(grantOperations, { logger });

  return {
    countUse: (keyId, secretHash, at, windowStart) => grants.countUse(keyId, secretHash, at, windowStart),
    releaseUse: (use, windowStart) => grants.releaseUse(use, windowStart),
    close: () => grants.close(),

    async findByKeyId(keyId) {
      const found = await keys().findOne({ keyId }, { projection: CREDENTIAL_FIELDS });
      return found ? toCredentialRecord(found as unknown as StoredCredential) : null;
    },

    async recordUses(all) {
      if (all.length === 0) return;
      // Refusals at the credential count in the rollups only: usageCount and the log keep accepted uses.
      await ApiKeyUsageRollupModel.collection.bulkWrite(rollupWrites(all, usageRollupRetentionSeconds), { ordered: false });
      const uses = all.filter((use) => !use.refusal);
      if (uses.length === 0) return;
      const entries = uses.map((use) => ({
        apiKeyId: use.apiKeyId,
        at: use.at,
        ip: use.ip,
        origin: use.origin,
        method: use.method,
        path: use.path,
        operation: use.operation,
        status: use.status,
        operations: use.operations ?? [],
        expireAt: new Date(use.at.getTime() + usageLogRetentionSeconds * 1000),
      }));
      await ApiKeyUsageModel.collection.insertMany(entries, { ordered: false });
      const updates = [...usesPerKey(uses)].map(([apiKeyId, { count, last }]) => ({
        updateOne: {
          filter: { _id: toObjectId(apiKeyId) },
          update: { $inc: { usageCount: count }, $max: { lastUsedAt: last } },
        },
      }));
      if (updates.length > 0) await keys().bulkWrite(updates, { ordered: false });
    },
  };
}

const DEFAULT_ROLLUP_RETENTION_SECONDS = 400 * 86_400;

/**
 * What a use counts as: a refusal at the credential as its refusal; an
 * accepted use as `forbidden` when answered 403 (a scope the key lacks, the
 * auth checker's refusal), else `success` (whatever the operation answered).
 */
export function outcomeOf(use: ApiKeyUse): UsageOutcome {
  if (use.refusal) return use.refusal;
  return use.status === 403 ? 'forbidden' : 'success';
}

/** One upsert per key and UTC hour of the batch, adding its uses by outcome. */
function rollupWrites(uses: readonly ApiKeyUse[], retentionSeconds: number) {
  const perHour = new Map<string, { apiKeyId: string; hour: Date; counts: Partial<Record<UsageOutcome, number>> }>();
  for (const use of uses) {
    if (!isObjectIdString(use.apiKeyId)) continue;
    const hour = new Date(Math.floor(use.at.getTime() / HOUR_MS) * HOUR_MS);
    const id = `${use.apiKeyId}/${hour.getTime()}`;
    const entry = perHour.get(id) ?? { apiKeyId: use.apiKeyId, hour, counts: {} };
    const outcome = outcomeOf(use);
    entry.counts[outcome] = (entry.counts[outcome] ?? 0) + 1;
    perHour.set(id, entry);
  }
  return [...perHour.values()].map(({ apiKeyId, hour, counts }) => ({
    updateOne: {
      filter: { apiKeyId, hour },
      update: { $inc: counts, $setOnInsert: { expireAt: new Date(hour.getTime() + HOUR_MS + retentionSeconds * 1000) } },
      upsert: true,
    },
  }));
}

/** Per key id (well-formed ones only): how many uses, and the latest. */
function usesPerKey(uses: readonly ApiKeyUse[]): Map<string, { count: number; last: Date }> {
  const perKey = new Map<string, { count: number; last: Date }>();
  for (const use of uses) {
    if (!isObjectIdString(use.apiKeyId)) continue;
    const seen = perKey.get(use.apiKeyId);
    if (!seen) perKey.set(use.apiKeyId, { count: 1, last: use.at });
    else perKey.set(use.apiKeyId, { count: seen.count + 1, last: use.at > seen.last ? use.at : seen.last });
  }
  return perKey;
}

function toCredentialRecord(stored: StoredCredential): ApiKeyCredentialRecord {
  return {
    id: stored._id.toHexString(),
    keyId: stored.keyId,
    tenantId: stored.tenant_id ?? null,
    createdBy: stored.createdBy,
    scopes: stored.scopes ?? [],
    allowedOrigins: stored.allowedOrigins ?? [],
    allowedIPs: stored.allowedIPs ?? [],
    expiresAt: stored.expiresAt ?? null,
    revokedAt: stored.revokedAt ?? null,
    disabledAt: stored.disabledAt ?? null,
    name: stored.name,
    rateLimit: stored.rateLimit,
    secrets: (stored.secrets ?? []).map((secret) => ({ hash: secret.hash, validUntil: secret.validUntil ?? null })),
  };
}
