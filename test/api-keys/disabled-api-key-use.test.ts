import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyModel, GRANT_MAX_AGE_MS } from '../../src/api-keys/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { callOperation, SURFACES, type Caller, type Operation, type Outcome, type Surface } from '../support/surfaces.js';

/**
 * A disabled key on use (contract: "a disabled key is refused with 401 'API
 * key disabled' on its next use, on every instance within a second"): as
 * `Authorization: Bearer` and `X-API-Key`, on both surfaces; a busy key
 * served from a grant, disabled by this instance (at once) and by another
 * (within a second); enabled again, it works again; revoked and expired win
 * over disabled in the message, as in the status.
 */

let app: TestApp;
let admin: TestUser;
const TENANT = 'tenant-disabled-keys';
/** Large enough for grants (api-key-grants.ts): a busy key's uses are served here for up to a second. */
const BUSY_LIMIT = 1_000_000;

interface MadeKey {
  id: string;
  secret: string;
}

async function makeKey(rateLimit = 1000): Promise<MadeKey> {
  const response = await app.rest('POST', '/api-keys', {
    token: admin.token,
    body: { name: `paused ${new ObjectId().toHexString().slice(-6)}`, scopes: ['menus:read'], rateLimit },
  });
  if (response.status !== 201) throw new Error(`createApiKey answered ${response.status}: ${JSON.stringify(response.body)}`);
  return { id: response.body._id, secret: response.body.key };
}

const listMenus: Operation = {
  rest: { method: 'GET', path: '/restaurant/meal-menus' },
  graphql: { query: 'query { mealMenus { items { id } } }' },
};

type Header = 'bearer' | 'x-api-key';
const HEADERS: readonly Header[] = ['bearer', 'x-api-key'];

const use = (surface: Surface, secret: string, header: Header = 'bearer'): Promise<Outcome> =>
  callOperation(app, surface, listMenus, (header === 'bearer' ? { token: secret } : { headers: { 'x-api-key': secret } }) satisfies Caller);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const refusal = (outcome: Outcome) => [outcome.status, outcome.message];

/** As disableApiKey does it: through the model, whose write ends this instance's grants of the key. */
const disableHere = (id: string) => ApiKeyModel.updateOne({ _id: id }, { $set: { disabledAt: new Date(), disabledReason: 'paused' } });
const enableHere = (id: string) => ApiKeyModel.updateOne({ _id: id }, { $set: { disabledAt: null, disabledReason: null } });
/** As another instance: straight to the database, no plugin of this process sees it. */
const disableElsewhere = (id: string) => app.db.collection('apikeys').updateOne({ _id: new ObjectId(id) }, { $set: { disabledAt: new Date() } });

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: TENANT, roles: ['admin'] });
});

afterAll(async () => {
  await app?.close();
});

describe('a disabled key', () => {
  for (const surface of SURFACES) {
    for (const header of HEADERS) {
      it(`is refused 401 "API key disabled" on its next use, and works again once enabled (${surface}, ${header})`, async () => {
        const key = await makeKey();
        expect((await use(surface, key.secret, header)).status).toBe(200);
        await disableHere(key.id);
        expect(refusal(await use(surface, key.secret, header))).toEqual([401, 'API key disabled']);
        await enableHere(key.id);
        expect((await use(surface, key.secret, header)).status).toBe(200);
      });
    }

    it(`says revoked or expired before disabled, as the status does (${surface})`, async () => {
      const revoked = await makeKey();
      await ApiKeyModel.updateOne({ _id: revoked.id }, { $set: { disabledAt: new Date(), revokedAt: new Date() } });
      expect(refusal(await use(surface, revoked.secret))).toEqual([401, 'API key revoked']);
      const expired = await makeKey();
      await ApiKeyModel.updateOne({ _id: expired.id }, { $set: { disabledAt: new Date(), expiresAt: new Date(Date.now() - 1000) } });
      expect(refusal(await use(surface, expired.secret))).toEqual([401, 'API key expired']);
    });

    it(`served from a grant, is refused at once when disabled through this instance (${surface})`, async () => {
      const key = await makeKey(BUSY_LIMIT);
      for (let i = 0; i < 4; i += 1) expect((await use(surface, key.secret)).status).toBe(200);
      await disableHere(key.id);
      expect(refusal(await use(surface, key.secret))).toEqual([401, 'API key disabled']);
    });

    it(`served from a grant, is refused within a second when disabled by another instance; enabled, it works again (${surface})`, async () => {
      const key = await makeKey(BUSY_LIMIT);
      for (let i = 0; i < 4; i += 1) expect((await use(surface, key.secret)).status).toBe(200);
      await disableElsewhere(key.id);
      const deadline = Date.now() + GRANT_MAX_AGE_MS * 1.5;
      let last = await use(surface, key.secret);
      while (last.status === 200 && Date.now() < deadline) {
        await sleep(50);
        last = await use(surface, key.secret);
      }
      expect(refusal(last)).toEqual([401, 'API key disabled']);
      await app.db.collection('apikeys').updateOne({ _id: new ObjectId(key.id) }, { $set: { disabledAt: null } });
      expect((await use(surface, key.secret)).status).toBe(200);
    });
  }

  it('counts its refusals as unauthorized uses in the rollups', async () => {
    const key = await makeKey();
    await disableHere(key.id);
    await use('rest', key.secret);
    await use('graphql', key.secret);
    let unauthorized = 0;
    for (let attempt = 0; attempt < 40 && unauthorized !== 2; attempt += 1) {
      await sleep(100);
      const rollups = await app.db.collection('apikeyusagerollups').find({ apiKeyId: key.id }).toArray();
      unauthorized = rollups.reduce((total, rollup) => total + (rollup.unauthorized ?? 0), 0);
    }
    expect(unauthorized).toBe(2);
  });
});
