import { ApiKeyModel } from './api-key.model.js';

/** What the expiry sweep needs of a key. */
export interface ExpiringKey {
  id: string;
  tenantId: string | null;
  expiresAt: Date;
}

/** The keys not revoked whose expiresAt is after `from` and at or before `to` (the expiresAt index), in expiry order. */
/** Keys read per page of a sweep. */
export const EXPIRY_PAGE = 500;

/** The keys not revoked that expire in (from, to], soonest first, a page at a time (by expiresAt, then id). */
export async function* keysExpiringBetween(from: Date, to: Date, pageSize = EXPIRY_PAGE): AsyncGenerator<ExpiringKey[]> {
  let after: { expiresAt: Date; _id: unknown } | null = null;
  for (;;) {
    const range = { expiresAt: { $gt: from, $lte: to }, revokedAt: null };
    const filter: Record<string, unknown> = after
      ? { ...range, $or: [{ expiresAt: { $gt: after.expiresAt, $lte: to } }, { expiresAt: after.expiresAt, _id: { $gt: after._id } }] }
      : range;
    const keys = await ApiKeyModel.collection
      .find(filter, { projection: { _id: 1, tenant_id: 1, expiresAt: 1 } })
      .sort({ expiresAt: 1, _id: 1 })
      .limit(pageSize)
      .toArray();
    if (keys.length > 0) yield keys.map((key) => ({ id: String(key._id), tenantId: (key.tenant_id as string | null | undefined) ?? null, expiresAt: key.expiresAt as Date }));
    const last = keys.at(-1);
    if (!last || keys.length < pageSize) return;
    after = { expiresAt: last.expiresAt as Date, _id: last._id };
  }
}
