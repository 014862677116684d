import { ApiKeyModel } from './api-key.model.js';

/** What the expiry sweep needs of a key. */
export interface ExpiringKey {
  id: string;
  tenantId: string | null;
  expiresAt: Date;
}

/** The keys not revoked whose expiresAt is after `from` and at or before `to` (the expiresAt index), in expiry order. */
export async function findKeysExpiringBetween(from: Date, to: Date): Promise<ExpiringKey[]> {
  const keys = await ApiKeyModel.collection
    .find({ expiresAt: { $gt: from, $lte: to }, revokedAt: null }, { projection: { _id: 1, tenant_id: 1, expiresAt: 1 } })
    .sort({ expiresAt: 1 })
    .toArray();
  return keys.map((key) => ({ id: String(key._id), tenantId: (key.tenant_id as string | null | undefined) ?? null, expiresAt: key.expiresAt as Date }));
}
