import type { MongoClient } from 'mongodb';
import { searchConditions, searchKeysOf } from '../src/users/user-search.js';
import { medianLatencyUs } from './measure.js';

/**
 * (e) `users(search)` at `size` users of one tenant, as UserService.list
 * asks the engine for a page of 20 (sort by _id, limit 21): through the
 * index of word prefixes (src/users/user-search.ts), unmatched and matched,
 * against the collection-scanning case-insensitive regex it replaced.
 */
export async function usersSearch(client: MongoClient, size = 100_000) {
  const coll = client.db('bench').collection('users');
  await coll.createIndex({ searchKeys: 1, tenant_id: 1 });
  await coll.createIndex({ tenant_id: 1, _id: 1 });
  const batch = 2000;
  for (let start = 0; start < size; start += batch) {
    await coll.insertMany(
      Array.from({ length: Math.min(batch, size - start) }, (_, k) => {
        const n = start + k;
        const user = { email: `person${n}@company${n % 50}.example.test`, firstName: `First${n % 997}`, lastName: `Last${n}`, tenant_id: 't' };
        return { ...user, roles: ['member'], searchKeys: searchKeysOf(user) };
      }),
    );
  }
  const unmatchedText = 'q'.repeat(100);
  const page = (filter: object) => coll.find({ tenant_id: 't', ...filter }).sort({ _id: 1 }).limit(21).toArray();
  const indexedUnmatchedUs = await medianLatencyUs(() => page({ $and: searchConditions(unmatchedText) }), { iterations: 300 });
  const indexedMatchedUs = await medianLatencyUs((i) => page({ $and: searchConditions(`last${(i * 7919) % size}`) }), { iterations: 300 });
  const regex = { $regex: unmatchedText, $options: 'i' };
  const scanUs = await medianLatencyUs(() => page({ $or: [{ email: regex }, { firstName: regex }, { lastName: regex }] }), {
    iterations: 10,
    warmup: 1,
    budgetMs: 30_000,
  });
  return { indexedUnmatchedUs, indexedMatchedUs, scanUs };
}
