import { describe, expect, it } from 'vitest';
import { ApiKeyModel } from '../../src/api-keys/index.js';
import { parseApiKeySecret, type ApiKeyUse } from '../../src/auth/index.js';
import type { Caller } from '../support/surfaces.js';
import { apiKeys, app, makeKey, member, RETENTION_SECONDS, sha256, store, storedById, TENANT, useApiKeysApp } from './api-key-fixtures.js';

/** The credential store (`countUse`, `recordUses`) on the app's database. */

useApiKeysApp();

// ---------------------------------------------------------------- the credential store

describe('the credential store (ApiKeyStore) on the database', () => {
  const HOUR = 3_600_000;
  const windowOf = (at: Date) => new Date(Math.floor(at.getTime() / HOUR) * HOUR);

  async function secretOf(creator: Caller = member, body: Record<string, unknown> = {}) {
    const made = await makeKey(creator, body);
    const parsed = parseApiKeySecret(made.key);
    if (!parsed) throw new Error('the answered key does not parse');
    return { ...made, hash: parsed.hash };
  }

  it('counts 1, 2, 3 in one window and starts again at 1 in the next', async () => {
    const key = await secretOf();
    const at = new Date();
    const counts = [];
    for (let i = 0; i < 3; i += 1) counts.push((await store.countUse(key.keyId, key.hash, at, windowOf(at)))?.usedInWindow);
    const next = new Date(windowOf(at).getTime() + HOUR + 5);
    counts.push((await store.countUse(key.keyId, key.hash, next, windowOf(next)))?.usedInWindow);
    counts.push((await store.countUse(key.keyId, key.hash, next, windowOf(next)))?.usedInWindow);
    expect(counts).toEqual([1, 2, 3, 1, 2]);
  });

  it('an instance whose clock is behind counts into the window a faster clock already started, never restarting it', async () => {
    const key = await secretOf();
    const behind = new Date();
    const ahead = new Date(windowOf(behind).getTime() + HOUR + 5);
    const counts = [];
    counts.push((await store.countUse(key.keyId, key.hash, ahead, windowOf(ahead)))?.usedInWindow);
    counts.push((await store.countUse(key.keyId, key.hash, behind, windowOf(behind)))?.usedInWindow);
    counts.push((await store.countUse(key.keyId, key.hash, ahead, windowOf(ahead)))?.usedInWindow);
    const stored = await ApiKeyModel.collection.findOne({ keyId: key.keyId });
    expect([counts, stored?.rateWindow?.start]).toEqual([[1, 2, 3], windowOf(ahead)]);
  });

  it('answers the key as the credential needs it, with its secret hashes', async () => {
    const key = await secretOf(member, { scopes: ['menus:read', 'api-keys:create'], allowedIPs: ['10.0.0.0/8'], allowedOrigins: ['https://a.example.test'], rateLimit: 7 });
    const at = new Date();
    const counted = await store.countUse(key.keyId, key.hash, at, windowOf(at));
    expect(counted).toEqual({
      usedInWindow: 1,
      key: {
        id: key.id,
        keyId: key.keyId,
        tenantId: TENANT,
        createdBy: member.id,
        scopes: ['menus:read', 'api-keys:create'],
        allowedOrigins: ['https://a.example.test'],
        allowedIPs: ['10.0.0.0/8'],
        expiresAt: null,
        revokedAt: null,
        disabledAt: null,
        name: key.record.name,
        rateLimit: 7,
        secrets: [{ hash: key.hash, validUntil: null }],
      },
    });
    expect(await store.findByKeyId(key.keyId)).toEqual(counted?.key);
  });

  it('answers null, counting nothing, for a wrong hash', async () => {
    const key = await secretOf();
    const at = new Date();
    expect(await store.countUse(key.keyId, sha256('ak_wrong'), at, windowOf(at))).toBeNull();
    expect(await store.countUse('NoSuchKeyId0', key.hash, at, windowOf(at))).toBeNull();
    expect((await storedById(key.id))?.rateWindow).toBeNull();
  });

  it('answers null for a revoked key', async () => {
    const key = await secretOf();
    await app.rest('PATCH', `/api-keys/${key.id}/revoke`, { token: member.token });
    const at = new Date();
    expect(await store.countUse(key.keyId, key.hash, at, windowOf(at))).toBeNull();
    expect((await store.findByKeyId(key.keyId))?.revokedAt).toBeInstanceOf(Date);
  });

  it('answers null for an expired key', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const key = await secretOf(member, { expiresAt: expiresAt.toISOString() });
    const before = new Date(expiresAt.getTime() - 1);
    expect((await store.countUse(key.keyId, key.hash, before, windowOf(before)))?.usedInWindow).toBe(1);
    expect(await store.countUse(key.keyId, key.hash, expiresAt, windowOf(expiresAt))).toBeNull();
  });

  it('accepts a rolled secret within its grace period, and never after it', async () => {
    const key = await secretOf();
    const rolled = await app.rest('POST', `/api-keys/${key.id}/roll`, { token: member.token, body: { gracePeriodSeconds: 60 } });
    expect(rolled.status).toBe(200);
    const newHash = parseApiKeySecret(rolled.body.key)!.hash;
    const now = new Date();
    const afterGrace = new Date(now.getTime() + 61_000);
    expect((await store.countUse(key.keyId, key.hash, now, windowOf(now)))?.usedInWindow).toBe(1);
    expect(await store.countUse(key.keyId, key.hash, afterGrace, windowOf(afterGrace))).toBeNull();
    expect(await store.countUse(key.keyId, newHash, afterGrace, windowOf(afterGrace))).not.toBeNull();
  });

  it('refuses a rolled secret at once when the grace period is 0', async () => {
    const key = await secretOf();
    const rolled = await app.rest('POST', `/api-keys/${key.id}/roll`, { token: member.token });
    expect(rolled.status).toBe(200);
    const at = new Date();
    expect(await store.countUse(key.keyId, key.hash, at, windowOf(at))).toBeNull();
    expect(await store.countUse(key.keyId, parseApiKeySecret(rolled.body.key)!.hash, at, windowOf(at))).not.toBeNull();
  });

  it('gives 30 concurrent uses the counts 1 to 30, each exactly once', async () => {
    const key = await secretOf();
    const at = new Date();
    const counted = await Promise.all(Array.from({ length: 30 }, () => store.countUse(key.keyId, key.hash, at, windowOf(at))));
    expect(counted.map((c) => c?.usedInWindow).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect((await storedById(key.id))?.rateWindow).toEqual({ start: windowOf(at), count: 30 });
  });

  it('gives 30 concurrent first uses of a new window the counts 1 to 30, each exactly once', async () => {
    const key = await secretOf();
    const at = new Date();
    for (let i = 0; i < 5; i += 1) await store.countUse(key.keyId, key.hash, at, windowOf(at));
    const next = new Date(windowOf(at).getTime() + HOUR + 5);
    const counted = await Promise.all(Array.from({ length: 30 }, () => store.countUse(key.keyId, key.hash, next, windowOf(next))));
    expect(counted.map((c) => c?.usedInWindow).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect((await storedById(key.id))?.rateWindow).toEqual({ start: windowOf(next), count: 30 });
  });

  it('counts nothing for a wrong hash, a revoked or an expired key in a window already started', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const [key, revoked, expiring] = [await secretOf(), await secretOf(), await secretOf(member, { expiresAt: expiresAt.toISOString() })];
    const at = new Date();
    for (const one of [key, revoked, expiring]) expect((await store.countUse(one.keyId, one.hash, at, windowOf(at)))?.usedInWindow).toBe(1);
    await app.rest('PATCH', `/api-keys/${revoked.id}/revoke`, { token: member.token });
    expect(await store.countUse(key.keyId, sha256('ak_wrong'), at, windowOf(at))).toBeNull();
    expect(await store.countUse(revoked.keyId, revoked.hash, at, windowOf(at))).toBeNull();
    expect(await store.countUse(expiring.keyId, expiring.hash, expiresAt, windowOf(at))).toBeNull();
    for (const one of [key, revoked, expiring]) expect((await storedById(one.id))?.rateWindow).toEqual({ start: windowOf(at), count: 1 });
  });

  it('records uses: log entries that expire after the retention, usageCount raised, lastUsedAt the latest', async () => {
    const [a, b] = [await secretOf(), await secretOf()];
    const t = Date.now();
    const use = (apiKeyId: string, at: number): ApiKeyUse => ({ apiKeyId, at: new Date(at), ip: '::1', origin: null, method: 'GET', path: '/api/v1/api-keys', operation: null, status: 200 });
    await store.recordUses([use(a.id, t - 3000), use(b.id, t - 2000), use(a.id, t - 1000)]);
    // An older batch written late never moves lastUsedAt back.
    await store.recordUses([use(a.id, t - 5000)]);
    await store.recordUses([]);
    const [storedA, storedB] = [await storedById(a.id), await storedById(b.id)];
    expect([storedA?.usageCount, storedA?.lastUsedAt, storedB?.usageCount, storedB?.lastUsedAt]).toEqual([2 + 1, new Date(t - 1000), 1, new Date(t - 2000)]);
    const entries = await app.db.collection('apikeyusages').find({ apiKeyId: a.id }).toArray();
    expect(entries).toHaveLength(3);
    for (const entry of entries) expect(entry.expireAt.getTime() - entry.at.getTime()).toBe(RETENTION_SECONDS * 1000);
  });

  it('keeps the usage log under a TTL index on expireAt and an index for newest-first reads', async () => {
    const indexes = await app.db.collection('apikeyusages').indexes();
    expect(indexes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: { expireAt: 1 }, expireAfterSeconds: 0 }),
        expect.objectContaining({ key: { apiKeyId: 1, at: -1, _id: -1 } }),
      ]),
    );
    const keyIndexes = await apiKeys().indexes();
    expect(keyIndexes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: { keyId: 1 }, unique: true }),
        expect.objectContaining({ key: { tenant_id: 1, createdBy: 1, _id: 1 } }),
      ]),
    );
  });
});
