import type { AnyBulkWriteOperation } from 'mongodb';
import { FOLDED_TENANT_EMAIL_INDEX, tenantKeyOf, UserModel } from './user.model.js';

const BATCH = 500;

/**
 * Brings users stored by an earlier version up to the current model, once
 * per database (later runs find nothing to do): each user without a
 * `tenantKey` gets one, then the unique index that folded tenant ids
 * (`{tenant_id, email}` under the email collation) is dropped, and the
 * `{email, tenantKey}` index alone keeps emails unique per tenant. The old
 * index made every (folded tenant, email) unique, so no two users can
 * collide on the new one. Until the old index is gone both hold, so a
 * create meanwhile is refused rather than duplicated. Safe when several
 * instances start at once (same values; a missing index is no error).
 */
export async function upgradeStoredUsers(): Promise<void> {
  const collection = UserModel.collection;
  let batch: AnyBulkWriteOperation[] = [];
  const flush = async () => {
    if (batch.length > 0) await collection.bulkWrite(batch, { ordered: false });
    batch = [];
  };
  for await (const user of collection.find({ tenantKey: { $exists: false } }, { projection: { tenant_id: 1 } })) {
    const tenantKey = tenantKeyOf((user.tenant_id as string | null | undefined) ?? null);
    batch.push({ updateOne: { filter: { _id: user._id, tenantKey: { $exists: false } }, update: { $set: { tenantKey } } } });
    if (batch.length === BATCH) await flush();
  }
  await flush();
  try {
    await collection.dropIndex(FOLDED_TENANT_EMAIL_INDEX);
  } catch (err) {
    // Already gone (a new database, an earlier start, another instance).
    const { code, codeName } = err as { code?: number; codeName?: string };
    if (code !== 27 && codeName !== 'IndexNotFound' && codeName !== 'NamespaceNotFound' && code !== 26) throw err;
  }
}
