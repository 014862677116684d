import { expect } from 'vitest';
import { permissions } from '../../src/auth/index.js';
import { apiCase, runCases } from '../support/surfaces.js';
import {
  admin,
  client,
  countByName,
  EVERY_SETTING,
  exactMessage,
  FIELDS_OF_2_1,
  freshName,
  KEY_PATTERN,
  member,
  nobody,
  op,
  OTHER_TENANT,
  platform,
  refusedCreate,
  revoker,
  sha256,
  storedById,
  TENANT,
  useApiKeysApp,
} from './api-key-fixtures.js';

/** Creating an API key (`POST /api-keys`, `createApiKey`): every setting, rule and refusal over both surfaces. */

useApiKeysApp();

// ---------------------------------------------------------------- create

runCases('creating an API key', client, [
  apiCase({
    name: 'answers 201 with every field of 2.1 and the secret key, shown once',
    arrange: () => ({ name: freshName(), ...EVERY_SETTING, expiresAt: new Date(Date.now() + 86_400_000).toISOString() }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: {
      status: 201,
      data: (key, body) => {
        for (const field of FIELDS_OF_2_1) expect(key, field).toHaveProperty(field);
        expect(key).toMatchObject({
          ...EVERY_SETTING,
          name: body.name,
          expiresAt: body.expiresAt,
          status: 'active',
          lastUsedAt: null,
          usageCount: 0,
          createdBy: admin.id,
          createdByKey: null,
          updatedBy: admin.id,
          tenant_id: TENANT,
          revokedAt: null,
          revokedBy: null,
        });
        expect(key._id).toMatch(/^[0-9a-f]{24}$/);
        expect(key.id).toBe(key._id);
        expect(key.key).toMatch(KEY_PATTERN);
        expect(key.key.slice(3, 15)).toBe(key.keyId);
        expect(Date.parse(key.createdAt)).not.toBeNaN();
        expect(Date.parse(key.updatedAt)).not.toBeNaN();
      },
      db: async (_body, outcome) => {
        const answered = outcome.data as { _id: string; key: string };
        const stored = await storedById(answered._id);
        expect(stored?.secrets).toEqual([{ hash: sha256(answered.key), validUntil: null }]);
        const text = JSON.stringify(stored);
        expect(text).not.toContain(answered.key);
        expect(text).not.toContain(answered.key.slice(16));
      },
    },
  }),
  apiCase({
    name: 'defaults: 1000 requests per hour, no lists, no expiry, empty metadata',
    arrange: () => ({ name: freshName(), scopes: ['menus:read'] }),
    caller: () => member,
    operation: (body) => op.create(body),
    expect: {
      status: 201,
      data: (key) =>
        expect(key).toMatchObject({
          rateLimit: 1000,
          allowedOrigins: [],
          allowedIPs: [],
          expiresAt: null,
          description: null,
          metadata: {},
          createdBy: member.id,
          status: 'active',
        }),
    },
  }),
  apiCase({
    name: "gives a platform administrator's key no tenant",
    arrange: () => ({ name: freshName(), scopes: ['users:read'] }),
    caller: () => platform,
    operation: (body) => op.create(body),
    expect: { status: 201, data: (key) => expect([key.tenant_id, key.createdBy]).toEqual([null, platform.id]) },
  }),
  refusedCreate('refuses an empty name', { name: '' }, 'name', 'isLength'),
  refusedCreate('refuses a name over 100 characters', { name: `long-${'x'.repeat(100)}` }, 'name', 'isLength'),
  refusedCreate('refuses a description over 500 characters', { description: 'd'.repeat(501) }, 'description', 'maxLength'),
  refusedCreate('refuses no scopes', { scopes: [] }, 'scopes', 'arrayMinSize'),
  refusedCreate('refuses a scope given twice', { scopes: ['menus:read', 'menus:read'] }, 'scopes', 'arrayUnique'),
  refusedCreate('refuses a scope outside the catalogue', { scopes: ['menus:read', 'everything:*'] }, 'scopes', 'isIn'),
  refusedCreate('refuses * as a scope', { scopes: ['*'] }, 'scopes', 'isIn'),
  refusedCreate('refuses more scopes than the catalogue holds', { scopes: [...permissions, 'menus:read'] }, 'scopes', 'arrayMaxSize'),
  refusedCreate('refuses an origin with a path', { allowedOrigins: ['https://kitchen.example.test/app'] }, 'allowedOrigins', 'isOrigin'),
  refusedCreate('refuses an origin with a trailing slash', { allowedOrigins: ['https://kitchen.example.test/'] }, 'allowedOrigins', 'isOrigin'),
  refusedCreate('refuses an origin that is not http(s)', { allowedOrigins: ['ftp://kitchen.example.test'] }, 'allowedOrigins', 'isOrigin'),
  refusedCreate('refuses an origin that is no URL', { allowedOrigins: ['kitchen.example.test'] }, 'allowedOrigins', 'isOrigin'),
  refusedCreate(
    'refuses more than 50 origins',
    { allowedOrigins: Array.from({ length: 51 }, (_, i) => `https://o${i}.example.test`) },
    'allowedOrigins',
    'arrayMaxSize',
  ),
  refusedCreate('refuses an IP that is no address', { allowedIPs: ['300.1.2.3'] }, 'allowedIPs', 'isIpOrCidr'),
  refusedCreate('refuses a host name as an IP', { allowedIPs: ['example.test'] }, 'allowedIPs', 'isIpOrCidr'),
  refusedCreate('refuses an IPv4 prefix over 32', { allowedIPs: ['10.0.0.0/33'] }, 'allowedIPs', 'isIpOrCidr'),
  refusedCreate('refuses an IPv6 prefix over 128', { allowedIPs: ['2001:db8::/129'] }, 'allowedIPs', 'isIpOrCidr'),
  refusedCreate('refuses a CIDR without a prefix length', { allowedIPs: ['10.0.0.0/'] }, 'allowedIPs', 'isIpOrCidr'),
  refusedCreate(
    'refuses more than 100 IPs',
    { allowedIPs: Array.from({ length: 101 }, (_, i) => `10.0.${Math.floor(i / 250)}.${i % 250}`) },
    'allowedIPs',
    'arrayMaxSize',
  ),
  refusedCreate('refuses an expiresAt in the past', { expiresAt: '2020-01-01T00:00:00.000Z' }, 'expiresAt', 'isFutureDate'),
  refusedCreate('refuses an expiresAt that is no instant', { expiresAt: 'next week' }, 'expiresAt', 'type'),
  refusedCreate('refuses a rateLimit of 0', { rateLimit: 0 }, 'rateLimit', 'min'),
  refusedCreate('refuses a rateLimit over 1,000,000', { rateLimit: 1_000_001 }, 'rateLimit', 'max'),
  refusedCreate('refuses a rateLimit that is no integer', { rateLimit: 1.5 }, 'rateLimit', 'type'),
  refusedCreate(
    'refuses metadata with more than 50 keys',
    { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
    'metadata',
    'maxKeys',
  ),
  refusedCreate('refuses metadata over 4 KiB as JSON', { metadata: { blob: 'x'.repeat(4100) } }, 'metadata', 'maxJsonBytes'),
  refusedCreate('refuses metadata keys MongoDB would read as operators', { metadata: { nested: { $where: 'x' } } }, 'metadata', 'storableKeys'),
  refusedCreate('refuses metadata that is no object', { metadata: ['a', 'b'] }, 'metadata', 'type'),
  apiCase({
    name: 'names every failing field at once',
    arrange: () => ({ name: '', scopes: ['nope'], allowedIPs: ['x'], rateLimit: 0 }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: {
      status: 400,
      fieldErrors: [
        { field: 'name', rule: 'isLength' },
        { field: 'scopes', rule: 'isIn' },
        { field: 'allowedIPs', rule: 'isIpOrCidr' },
        { field: 'rateLimit', rule: 'min' },
      ],
    },
  }),
  apiCase({
    name: 'refuses an unknown field',
    arrange: () => ({ name: freshName('unknown'), scopes: ['menus:read'], tenant_id: OTHER_TENANT }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 400, db: async (body) => expect(await countByName(body.name)).toBe(0) },
  }),
  apiCase({
    name: 'refuses a scope the caller does not hold with 403 naming it, and writes nothing',
    arrange: () => ({ name: freshName('ceiling'), scopes: ['menus:read', 'menus:write'] }),
    caller: () => member,
    operation: (body) => op.create(body),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      data: exactMessage("You cannot give an API key the scope 'menus:write' you do not hold"),
      db: async (body) => expect(await countByName(body.name)).toBe(0),
    },
  }),
  apiCase({
    name: 'names every scope the caller does not hold',
    arrange: () => ({ name: freshName('ceiling'), scopes: ['users:update', 'menus:read', 'api-keys:revoke'] }),
    caller: () => member,
    operation: (body) => op.create(body),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      data: exactMessage("You cannot give an API key the scopes 'users:update', 'api-keys:revoke' you do not hold"),
    },
  }),
  apiCase({
    name: 'refuses a caller without api-keys:create with 403',
    arrange: () => ({ name: freshName('no-create'), scopes: ['api-keys:revoke'] }),
    caller: () => revoker,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN', db: async (body) => expect(await countByName(body.name)).toBe(0) },
  }),
  apiCase({
    name: 'refuses a request without a credential with 401',
    arrange: () => ({ name: freshName('anonymous'), scopes: ['menus:read'] }),
    caller: () => nobody,
    operation: (body) => op.create(body),
    expect: { status: 401, code: 'UNAUTHENTICATED', headers: { 'www-authenticate': 'Bearer' } },
  }),
]);
