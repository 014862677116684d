import type { Types } from 'mongoose';
import type { ApiKeyCredentialRecord, ApiKeyStore, ApiKeyUse } from '../auth/index.js';
import { isObjectIdString, toObjectId } from '../shared/object-id.js';
import { ApiKeyUsageModel } from './api-key-usage.model.js';
import { ApiKeyModel, liveAt, type ApiKey, type ApiKeySecret, type RateWindow } from './api-key.model.js';

export interface ApiKeyStoreOptions {
  /** How long a usage-log entry is kept (its `expireAt`, which a TTL index honours). */
  usageLogRetentionSeconds: number;
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

/**
 * The api-keys area's side of auth's `ApiKeyStore` port: what the API key
 * credential reads and writes. It works on the driver's collections (no
 * mongoose timestamps: a use is not an update of the key).
 */
export function createApiKeyStore({ usageLogRetentionSeconds }: ApiKeyStoreOptions): ApiKeyStore {
  const keys = () => ApiKeyModel.collection;

  return {
    async countUse(keyId, secretHash, at, windowStart) {
      const accepting = {
        keyId,
        ...liveAt(at),
        secrets: { $elemMatch: { hash: secretHash, $or: [{ validUntil: null }, { validUntil: { $gt: at } }] } },
      };
      const options = { returnDocument: 'after', projection: CREDENTIAL_FIELDS } as const;
      // Each is one atomic findAndModify whose filter checks the key and the
      // secret. Nearly every use falls in the window already started: a plain
      // $inc counts it (cheaper for the database than a pipeline update).
      // Otherwise (the first use of the hour, or a refusal) the pipeline
      // counts the use in the window, starting a new one at 1. A stored
      // window that started later (an instance whose clock is ahead began
      // it) is counted into, never restarted: instances with skewed clocks
      // share one count.
      const found =
        (await keys().findOneAndUpdate({ ...accepting, 'rateWindow.start': windowStart }, { $inc: { 'rateWindow.count': 1 } }, options)) ??
        (await keys().findOneAndUpdate(
          accepting,
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
      if (!found) return null;
      const stored = found as unknown as StoredCredential;
      return { key: toCredentialRecord(stored), usedInWindow: stored.rateWindow?.count ?? 1 };
    },

    async releaseUse(keyId, windowStart) {
      await keys().updateOne({ keyId, 'rateWindow.start': windowStart, 'rateWindow.count': { $gt: 0 } }, { $inc: { 'rateWindow.count': -1 } });
    },

    async findByKeyId(keyId) {
      const found = await keys().findOne({ keyId }, { projection: CREDENTIAL_FIELDS });
      return found ? toCredentialRecord(found as unknown as StoredCredential) : null;
    },

    async recordUses(uses) {
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
    rateLimit: stored.rateLimit,
    secrets: (stored.secrets ?? []).map((secret) => ({ hash: secret.hash, validUntil: secret.validUntil ?? null })),
  };
}
