import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRANT_MAX_AGE_MS } from '../../src/api-keys/index.js';
import { generateApiKeySecret } from '../../src/auth/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { callOperation, SURFACES, type Caller, type Operation, type Outcome, type Surface } from '../support/surfaces.js';

/**
 * A busy key's uses counted in grants (issue 12): a key whose hourly limit is
 * large takes its uses from the database a few at a time and serves them here
 * for up to a second. On both surfaces: every use is still counted exactly
 * (usage and the window's count, once the unused part is given back), the
 * RateLimit header counts down by one per use, a revoke or roll through this
 * instance is honoured by the next use, one written to the database by
 * another instance within a second, and a wrong secret spends nothing.
 */

let app: TestApp;
let admin: TestUser;
const TENANT = 'tenant-key-grants';
/** Large enough for grants (a thousandth of it, at most 100, per grant). */
const LIMIT = 1_000_000;

interface MadeKey {
  id: string;
  secret: string;
}

async function makeKey(settings: { rateLimit?: number; allowedOrigins?: string[] } = {}): Promise<MadeKey> {
  const response = await app.rest('POST', '/api-keys', {
    token: admin.token,
    body: { name: `busy ${new ObjectId().toHexString().slice(-6)}`, scopes: ['menus:read'], rateLimit: LIMIT, ...settings },
  });
  if (response.status !== 201) throw new Error(`createApiKey answered ${response.status}: ${JSON.stringify(response.body)}`);
  return { id: response.body._id, secret: response.body.key };
}

const listMenus: Operation = {
  rest: { method: 'GET', path: '/restaurant/meal-menus' },
  graphql: { query: 'query { mealMenus { items { id } } }' },
};

const use = (surface: Surface, secret: string, headers: Record<string, string> = {}): Promise<Outcome> =>
  callOperation(app, surface, listMenus, { token: secret, headers } satisfies Caller);
const remaining = (outcome: Outcome) => Number(/r=(\d+)/.exec(outcome.raw.headers.get('ratelimit') ?? '')?.[1]);
const storedKey = (id: string) => app.db.collection('apikeys').findOne({ _id: new ObjectId(id) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until the key's usageCount and window count are `uses` (usage is written within a second, a grant given back when it ends). */
async function countsOf(id: string, uses: number): Promise<[number, number]> {
  let stored = await storedKey(id);
  for (let attempt = 0; attempt < 40 && (stored?.usageCount !== uses || stored?.rateWindow?.count !== uses); attempt += 1) {
    await sleep(100);
    stored = await storedKey(id);
  }
  return [stored?.usageCount, stored?.rateWindow?.count];
}

/** `n` uses one after the other; their statuses and remaining counts. */
async function useTimes(surface: Surface, secret: string, n: number, headers: Record<string, string> = {}): Promise<Outcome[]> {
  const outcomes = [];
  for (let i = 0; i < n; i += 1) outcomes.push(await use(surface, secret, headers));
  return outcomes;
}

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: TENANT, roles: ['admin'] });
});

afterAll(async () => {
  await app?.close();
});

describe('a key with a large hourly limit', () => {
  it.each(SURFACES)('counts each use once: r down by one per use, usageCount and the window count exact once the grant ends (%s)', async (surface) => {
    const key = await makeKey();
    const outcomes = await useTimes(surface, key.secret, 12);
    expect(outcomes.map((o) => o.status)).toEqual(Array(12).fill(200));
    expect(outcomes.map(remaining)).toEqual(Array.from({ length: 12 }, (_, i) => LIMIT - 1 - i));
    expect(outcomes.every((o) => o.raw.headers.get('ratelimit-policy') === `"key";q=${LIMIT};w=3600`)).toBe(true);
    // Uses granted and not used are given back when the grant ends (within a second).
    expect(await countsOf(key.id, 12)).toEqual([12, 12]);
  });

  it.each(SURFACES)('is refused at once after a revoke through this instance, the unused grant given back (%s)', async (surface) => {
    const key = await makeKey();
    // Four uses: the last took a grant of four, three of them unused.
    expect((await useTimes(surface, key.secret, 4)).map((o) => o.status)).toEqual([200, 200, 200, 200]);
    expect((await app.rest('PATCH', `/api-keys/${key.id}/revoke`, { token: admin.token })).status).toBe(200);
    const refused = await use(surface, key.secret);
    expect([refused.status, refused.code, refused.message]).toEqual([401, 'UNAUTHENTICATED', 'API key revoked']);
    expect(await countsOf(key.id, 4)).toEqual([4, 4]);
  });

  it.each(SURFACES)('is refused within a second after a revoke written by another instance (%s)', async (surface) => {
    const key = await makeKey();
    expect((await useTimes(surface, key.secret, 4)).map((o) => o.status)).toEqual([200, 200, 200, 200]);
    // As another instance's revoke: straight to the database, no plugin of this process sees it.
    await app.db.collection('apikeys').updateOne({ _id: new ObjectId(key.id) }, { $set: { revokedAt: new Date() } });
    const deadline = Date.now() + GRANT_MAX_AGE_MS * 1.5;
    let last = await use(surface, key.secret);
    while (last.status === 200 && Date.now() < deadline) {
      await sleep(50);
      last = await use(surface, key.secret);
    }
    expect([last.status, last.message]).toEqual([401, 'API key revoked']);
  });

  it.each(SURFACES)('refuses the old secret at once after a roll without grace through this instance; the new one works (%s)', async (surface) => {
    const key = await makeKey();
    expect((await useTimes(surface, key.secret, 4)).map((o) => o.status)).toEqual([200, 200, 200, 200]);
    const rolled = await app.rest('POST', `/api-keys/${key.id}/roll`, { token: admin.token, body: { gracePeriodSeconds: 0 } });
    expect(rolled.status).toBe(200);
    const [old, fresh] = [await use(surface, key.secret), await use(surface, rolled.body.key as string)];
    expect([old.status, old.message, fresh.status]).toEqual([401, 'Invalid API key', 200]);
    expect(await countsOf(key.id, 5)).toEqual([5, 5]);
  });

  it.each(SURFACES)('refuses a wrong secret for its key id while a grant is live, spending nothing of it (%s)', async (surface) => {
    const key = await makeKey();
    const before = await useTimes(surface, key.secret, 4);
    const keyId = key.secret.slice(3, 15);
    const wrong = await use(surface, generateApiKeySecret(keyId).secret);
    expect([wrong.status, wrong.code, wrong.message]).toEqual([401, 'UNAUTHENTICATED', 'Invalid API key']);
    const after = await use(surface, key.secret);
    expect([...before, after].map(remaining)).toEqual([1, 2, 3, 4, 5].map((n) => LIMIT - n));
    expect(await countsOf(key.id, 5)).toEqual([5, 5]);
  });

  it.each(SURFACES)('takes no grant past the limit: uses counted by other instances leave room for one more use, then 429 (%s)', async (surface) => {
    const key = await makeKey();
    // Seven uses: grants of 1, 2 and 4, used up; the next would take 8.
    expect((await useTimes(surface, key.secret, 7)).map((o) => o.status)).toEqual(Array(7).fill(200));
    // Other instances' uses fill the window but for one.
    await app.db.collection('apikeys').updateOne({ _id: new ObjectId(key.id) }, { $set: { 'rateWindow.count': LIMIT - 1 } });
    const [last, over] = await useTimes(surface, key.secret, 2);
    expect([last.status, remaining(last), over.status, over.code, remaining(over)]).toEqual([200, 0, 429, 'RATE_LIMITED', 0]);
  });

  it.each(SURFACES)('gives back a use refused by Origin within a second, with no further use of the key (%s)', async (surface) => {
    const key = await makeKey({ allowedOrigins: [ORIGIN] });
    const refused = await use(surface, key.secret);
    expect([refused.status, refused.code]).toEqual([403, 'FORBIDDEN']);
    expect(await windowCountOf(key.id, 0)).toBe(0);
  });

  it.each(SURFACES)('serves no more than the limit when a use refused by Origin was counted by the database, not by the live grant (%s)', async (surface) => {
    // 2,000 an hour: grants of at most 2. The window is nearly full (other instances' uses).
    const key = await makeKey({ rateLimit: 2000, allowedOrigins: [ORIGIN] });
    await app.db.collection('apikeys').updateOne({ _id: new ObjectId(key.id) }, { $set: { rateWindow: { start: currentWindow(), count: 1996 } } });
    // A grant of 1 (1997), then one of 2 (1999): one use left here.
    expect((await useTimes(surface, key.secret, 2, { origin: ORIGIN })).map((o) => o.status)).toEqual([200, 200]);
    // As another instance: one use served (2000), and a roll this instance has not read.
    const rolled = generateApiKeySecret(key.secret.slice(3, 15));
    await app.db
      .collection('apikeys')
      .updateOne({ _id: new ObjectId(key.id) }, { $inc: { 'rateWindow.count': 1 }, $push: { secrets: { hash: rolled.hash, validUntil: null } } } as never);
    // The new secret without an Origin: counted by the database past the limit, then refused.
    expect((await use(surface, rolled.secret)).status).toBe(403);
    const after = await useTimes(surface, key.secret, 2, { origin: ORIGIN });
    expect(after.map((o) => o.status)).toEqual([200, 429]);
  });
});

const ORIGIN = 'https://busy.example.test';

/** The start of the current clock hour, as the credential computes it. */
function currentWindow(): Date {
  return new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
}

/** Polls until the key's window count is `uses` (a grant's unused uses are given back when it ends). */
async function windowCountOf(id: string, uses: number): Promise<number | undefined> {
  let stored = await storedKey(id);
  for (let attempt = 0; attempt < 40 && stored?.rateWindow?.count !== uses; attempt += 1) {
    await sleep(100);
    stored = await storedKey(id);
  }
  return stored?.rateWindow?.count;
}
