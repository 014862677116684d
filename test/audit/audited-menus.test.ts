import { Writable } from 'node:stream';
import { ObjectId, type Document } from 'mongodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuditEventModel } from '../../src/audit/index.js';
import { createLogger } from '../../src/logger.js';
import { apiCase, callOperation, runCases, SURFACES, type Caller, type Operation, type Surface } from '../support/surfaces.js';
import { argumentTypes } from '../support/schema-operations.js';
import { servedSchema, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The audit trail as the meal-menu mutations write it, over REST and GraphQL:
 * each call leaves exactly one record, found by the X-Request-Id the case
 * sends, read back through the native driver (`auditevents` collection).
 */

let app: TestApp;
const client = () => app;

const TENANT = 'tenant-audited';
const OTHER_TENANT = 'tenant-audited-elsewhere';
let admin: Caller & { id: string }; // TENANT admin (`*`)
let platform: Caller & { id: string }; // platform administrator, no tenant

/** Log lines at level error and above (a failed audit write is one). */
const logLines: Record<string, any>[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(...String(chunk).split('\n').filter(Boolean).map((line) => JSON.parse(line)));
    done();
  },
});

beforeAll(async () => {
  app = await startTestApp({ logger: createLogger({ logLevel: 'error' }, sink) });
  const [a, p] = await Promise.all([app.createUser({ tenantId: TENANT }), app.createUser({ tenantId: null })]);
  admin = { token: a.token, id: a.id };
  platform = { token: p.token, id: p.id };
});

afterAll(async () => {
  await app?.close();
});

afterEach(() => {
  vi.restoreAllMocks();
});

// ---------------------------------------------------------------- operations

const op = {
  create(body: Record<string, unknown>): Operation {
    return {
      rest: { method: 'POST', path: '/restaurant/meal-menus', body },
      graphql: {
        // Only the variables sent are declared, so an argument not sent is not in the document either.
        query: `mutation(${Object.keys(body).map((name) => `$${name}: ${CREATE_VARIABLE_TYPES[name]}`).join(', ')}) {
          createMealMenu(${Object.keys(body).map((name) => `${name}: $${name}`).join(', ')}) { id tenant_id } }`,
        variables: body,
      },
    };
  },
  updatePortions(id: string, portions: number): Operation {
    return {
      rest: { method: 'PATCH', path: `/restaurant/meal-menus/${id}/estimated-portions/${portions}` },
      graphql: {
        query: 'mutation($id: ID!, $portions: Int!) { updateEstimatedPortions(id: $id, portions: $portions) { id } }',
        variables: { id, portions },
      },
    };
  },
  delete(id: string): Operation {
    return {
      rest: { method: 'DELETE', path: `/restaurant/meal-menus/${id}` },
      graphql: { query: 'mutation($id: ID!) { deleteMealMenu(id: $id) { id mode deletedAt } }', variables: { id } },
    };
  },
};

/** GraphQL types of the create arguments, from the served schema. */
const CREATE_VARIABLE_TYPES = argumentTypes(await servedSchema(), 'Mutation.createMealMenu');

// ------------------------------------------------------------------ fixtures

const SECRET_NAME = 'Saffron risotto night';
const SECRET_DESCRIPTION = 'Only the chef knows';
const SECRET_DISH = 'Risotto alla milanese';
const SECRET_ALLERGEN = 'saffron-pollen';

function menuBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: SECRET_NAME,
    description: SECRET_DESCRIPTION,
    date: '2026-05-05',
    mealType: 'dinner',
    items: [{ name: SECRET_DISH, allergens: [SECRET_ALLERGEN] }],
    estimatedPortions: 77,
    ...overrides,
  };
}

let requestCounter = 0;
/** A request id of its own for each run of each case. */
const newRequestId = (surface: Surface) => `audit-${surface}-${(requestCounter += 1)}-${Date.now()}`;

/** The caller with the request id the record must carry. */
const sending = (who: Caller, requestId: string): Caller => ({ ...who, headers: { 'x-request-id': requestId } });

const auditEvents = () => app.db.collection('auditevents');
const recordsOf = (requestId: string) => auditEvents().find({ requestId }).toArray();
const menus = () => app.db.collection('mealmenus');

/** The one record a request left; fails when there is none or more than one. */
async function onlyRecordOf(requestId: string): Promise<Document> {
  const records = await recordsOf(requestId);
  expect(records, `audit records of ${requestId}`).toHaveLength(1);
  return records[0]!;
}

async function createMenu(as: Caller = admin, overrides: Record<string, unknown> = {}): Promise<string> {
  const outcome = await callOperation(app, 'rest', op.create(menuBody(overrides)), as);
  if (outcome.status !== 201) throw new Error(`fixture create failed: ${JSON.stringify(outcome.raw.body)}`);
  return (outcome.data as { id: string }).id;
}

/** A legacy record without deletedAt (a delete removes it for good). */
async function plantLegacyMenu(tenant = TENANT): Promise<string> {
  const _id = new ObjectId();
  const now = new Date();
  await menus().insertOne({
    _id,
    name: 'Imported',
    date: '2025-12-24',
    mealType: 'dinner',
    items: [],
    estimatedPortions: 4,
    tenant_id: tenant,
    createdBy: admin.id,
    updatedBy: admin.id,
    createdAt: now,
    updatedAt: now,
  });
  return _id.toHexString();
}

const unknownId = () => new ObjectId().toHexString();

interface Fixture {
  requestId: string;
  id: string;
}

/** A fresh request id, and a fresh menu of TENANT to act on. */
async function menuFixture(surface: Surface): Promise<Fixture> {
  return { requestId: newRequestId(surface), id: await createMenu() };
}

/** A fresh request id, and an id no menu has. */
function unknownFixture(surface: Surface): Fixture {
  return { requestId: newRequestId(surface), id: unknownId() };
}

const withRequestId = (surface: Surface) => ({ requestId: newRequestId(surface) });

/** The caller's address as the server saw it (IPv4, maybe IPv4-mapped IPv6). */
const LOOPBACK = /^(::ffff:)?127\.0\.0\.1$/;

// ------------------------------------------------------------------ success

runCases('Recording successful meal-menu changes (one success record per mutation)', client, [
  apiCase({
    name: 'records a create: actor, tenant, action, target, field names, request id, ip, time, success',
    arrange: withRequestId,
    caller: (f) => sending(admin, f.requestId),
    operation: () => op.create(menuBody()),
    expect: {
      status: 201,
      db: async (f, outcome) => {
        const record = await onlyRecordOf(f.requestId);
        expect(record).toMatchObject({
          actor: { type: 'user', id: admin.id },
          tenant_id: TENANT,
          action: 'menus.create',
          target: { type: 'MealMenu', id: (outcome.data as { id: string }).id },
          requestId: f.requestId,
          outcome: 'success',
        });
        expect([...record['changes']].sort()).toEqual(['date', 'description', 'estimatedPortions', 'items', 'mealType', 'name']);
        expect(record['ip']).toMatch(LOOPBACK);
        expect(record['at']).toBeInstanceOf(Date);
        expect(Math.abs(Date.now() - (record['at'] as Date).getTime())).toBeLessThan(60_000);
      },
    },
  }),
  apiCase({
    name: 'stores field names, never values',
    arrange: withRequestId,
    caller: (f) => sending(admin, f.requestId),
    operation: () => op.create(menuBody()),
    expect: {
      status: 201,
      db: async (f) => {
        const text = JSON.stringify(await onlyRecordOf(f.requestId));
        for (const value of [SECRET_NAME, SECRET_DESCRIPTION, SECRET_DISH, SECRET_ALLERGEN]) {
          expect(text).not.toContain(value);
        }
      },
    },
  }),
  apiCase({
    name: 'names no field the caller left out (one without a default)',
    arrange: withRequestId,
    caller: (f) => sending(admin, f.requestId),
    operation: () => op.create({ name: 'Plain', date: '2026-05-06', mealType: 'snack' }),
    expect: {
      status: 201,
      db: async (f) => {
        const { changes } = await onlyRecordOf(f.requestId);
        expect(changes).toEqual(expect.arrayContaining(['name', 'date', 'mealType']));
        expect(changes).not.toContain('description');
        expect(changes).not.toContain('tenant_id');
      },
    },
  }),
  apiCase({
    name: "records a platform administrator's create under the tenant it named",
    arrange: withRequestId,
    caller: (f) => sending(platform, f.requestId),
    operation: () => op.create(menuBody({ tenant_id: OTHER_TENANT })),
    expect: {
      status: 201,
      db: async (f) => {
        const record = await onlyRecordOf(f.requestId);
        expect(record).toMatchObject({ actor: { type: 'user', id: platform.id }, tenant_id: OTHER_TENANT, outcome: 'success' });
        expect(record['changes']).toContain('tenant_id');
      },
    },
  }),
  apiCase({
    name: 'records an update of the portions, naming only portions',
    arrange: menuFixture,
    caller: (f) => sending(admin, f.requestId),
    operation: (f) => op.updatePortions(f.id, 12),
    expect: {
      status: 200,
      db: async (f) =>
        expect(await onlyRecordOf(f.requestId)).toMatchObject({
          actor: { type: 'user', id: admin.id },
          tenant_id: TENANT,
          action: 'menus.update',
          target: { type: 'MealMenu', id: f.id },
          changes: ['portions'],
          outcome: 'success',
        }),
    },
  }),
  apiCase({
    name: 'records a soft delete, with no field names',
    arrange: menuFixture,
    caller: (f) => sending(admin, f.requestId),
    operation: (f) => op.delete(f.id),
    expect: {
      status: 200,
      db: async (f) =>
        expect(await onlyRecordOf(f.requestId)).toMatchObject({
          actor: { type: 'user', id: admin.id },
          tenant_id: TENANT,
          action: 'menus.delete',
          target: { type: 'MealMenu', id: f.id },
          changes: [],
          outcome: 'success',
        }),
    },
  }),
  apiCase({
    name: "records a platform administrator's delete under the menu's tenant",
    arrange: menuFixture,
    caller: (f) => sending(platform, f.requestId),
    operation: (f) => op.delete(f.id),
    expect: {
      status: 200,
      db: async (f) =>
        expect(await onlyRecordOf(f.requestId)).toMatchObject({
          actor: { type: 'user', id: platform.id },
          tenant_id: TENANT,
          action: 'menus.delete',
          outcome: 'success',
        }),
    },
  }),
  apiCase({
    name: "records a platform administrator's hard delete of a legacy record under its tenant",
    arrange: async (surface) => ({ requestId: newRequestId(surface), id: await plantLegacyMenu(OTHER_TENANT) }),
    caller: (f) => sending(platform, f.requestId),
    operation: (f) => op.delete(f.id),
    expect: {
      status: 200,
      data: (result: { mode: string }) => expect(result.mode).toBe('hard'),
      db: async (f) =>
        expect(await onlyRecordOf(f.requestId)).toMatchObject({
          tenant_id: OTHER_TENANT,
          target: { type: 'MealMenu', id: f.id },
          outcome: 'success',
        }),
    },
  }),
  apiCase({
    name: 'never answers the tenant it hands to the trail on a delete',
    arrange: menuFixture,
    caller: (f) => sending(admin, f.requestId),
    operation: (f) => op.delete(f.id),
    expect: { status: 200, data: (result: Record<string, unknown>) => expect(result).not.toHaveProperty('tenant_id') },
  }),
]);

// ------------------------------------------------------------------ failure

runCases('Recording refused meal-menu changes (one failure record, the same answer)', client, [
  apiCase({
    name: 'records a failure for an update of an unknown menu (404), with its id',
    arrange: unknownFixture,
    caller: (f) => sending(admin, f.requestId),
    operation: (f) => op.updatePortions(f.id, 5),
    expect: {
      status: 404,
      code: 'NOT_FOUND',
      db: async (f) =>
        expect(await onlyRecordOf(f.requestId)).toMatchObject({
          actor: { type: 'user', id: admin.id },
          tenant_id: TENANT,
          action: 'menus.update',
          target: { type: 'MealMenu', id: f.id },
          changes: ['portions'],
          requestId: f.requestId,
          outcome: 'failure',
        }),
    },
  }),
  apiCase({
    name: 'records a failure for bad portions (400)',
    arrange: menuFixture,
    caller: (f) => sending(admin, f.requestId),
    operation: (f) => op.updatePortions(f.id, -1),
    expect: {
      status: 400,
      code: 'BAD_USER_INPUT',
      fieldErrors: [{ field: 'portions', rule: 'min' }],
      db: async (f) =>
        expect(await onlyRecordOf(f.requestId)).toMatchObject({
          action: 'menus.update',
          target: { type: 'MealMenu', id: f.id },
          outcome: 'failure',
        }),
    },
  }),
  apiCase({
    name: 'records a failure for a delete of an unknown menu (404)',
    arrange: unknownFixture,
    caller: (f) => sending(admin, f.requestId),
    operation: (f) => op.delete(f.id),
    expect: {
      status: 404,
      code: 'NOT_FOUND',
      db: async (f) =>
        expect(await onlyRecordOf(f.requestId)).toMatchObject({
          action: 'menus.delete',
          target: { type: 'MealMenu', id: f.id },
          tenant_id: TENANT,
          outcome: 'failure',
        }),
    },
  }),
  apiCase({
    name: 'records a failed create without a target id (platform administrator naming no tenant, 400)',
    arrange: withRequestId,
    caller: (f) => sending(platform, f.requestId),
    operation: () => op.create(menuBody()),
    expect: {
      status: 400,
      code: 'BAD_USER_INPUT',
      fieldErrors: [{ field: 'tenant_id', rule: 'required' }],
      db: async (f) =>
        expect(await onlyRecordOf(f.requestId)).toMatchObject({
          actor: { type: 'user', id: platform.id },
          tenant_id: null,
          action: 'menus.create',
          target: { type: 'MealMenu', id: null },
          outcome: 'failure',
        }),
    },
  }),
  apiCase({
    name: "records a tenant member's refused create in its own tenant, not the one it named (403)",
    arrange: withRequestId,
    caller: (f) => sending(admin, f.requestId),
    operation: () => op.create(menuBody({ tenant_id: OTHER_TENANT })),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      db: async (f) =>
        expect(await onlyRecordOf(f.requestId)).toMatchObject({ tenant_id: TENANT, action: 'menus.create', outcome: 'failure' }),
    },
  }),
  apiCase({
    name: 'records nothing for a call without a credential (401)',
    arrange: unknownFixture,
    caller: (f) => ({ headers: { 'x-request-id': f.requestId } }),
    operation: (f) => op.delete(f.id),
    expect: { status: 401, code: 'UNAUTHENTICATED', db: async (f) => expect(await recordsOf(f.requestId)).toEqual([]) },
  }),
]);

// ------------------------------------------------------- the trail failing

/** Makes the next audit write (one grouped insert) fail, as a full disk or a lost connection would. */
function failNextAuditWrite(): void {
  vi.spyOn(AuditEventModel.collection, 'bulkWrite').mockRejectedValueOnce(new Error('audit store unavailable'));
}

/** The error lines logged for one request. */
const errorLinesOf = (requestId: string) =>
  logLines.filter((line) => line.req?.id === requestId && line.msg === 'audit event could not be written');

runCases('When the audit record cannot be written', client, [
  apiCase({
    name: 'a successful mutation still answers its result, and the failure is logged',
    arrange: async (surface) => {
      const fixture = await menuFixture(surface);
      failNextAuditWrite();
      return fixture;
    },
    caller: (f) => sending(admin, f.requestId),
    operation: (f) => op.updatePortions(f.id, 33),
    expect: {
      status: 200,
      data: (menu: { id: string }, f) => expect(menu.id).toBe(f.id),
      db: async (f) => {
        expect(await menus().findOne({ _id: new ObjectId(f.id) })).toMatchObject({ estimatedPortions: 33 });
        expect(await recordsOf(f.requestId)).toEqual([]);
        expect(errorLinesOf(f.requestId)).toHaveLength(1);
        expect(errorLinesOf(f.requestId)[0]).toMatchObject({ level: 50, audit: { action: 'menus.update', outcome: 'success' } });
      },
    },
  }),
  apiCase({
    name: 'a refused mutation still answers its own error',
    arrange: (surface) => {
      const fixture = unknownFixture(surface);
      failNextAuditWrite();
      return fixture;
    },
    caller: (f) => sending(admin, f.requestId),
    operation: (f) => op.delete(f.id),
    expect: {
      status: 404,
      code: 'NOT_FOUND',
      db: async (f) => {
        expect(await recordsOf(f.requestId)).toEqual([]);
        expect(errorLinesOf(f.requestId)).toHaveLength(1);
      },
    },
  }),
]);

// ------------------------------------------------- many at once (group commit)

/** Concurrent calls of one surface; each resolves with its own answer and its own record read right after it. */
async function concurrently(surface: Surface, count: number, operation: (index: number) => Operation) {
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const requestId = newRequestId(surface);
      const outcome = await callOperation(app, surface, operation(index), sending(admin, requestId));
      // Read at once, before any other request of the batch is awaited: the record is there when the answer is.
      const records = await recordsOf(requestId);
      return { index, requestId, outcome, records };
    }),
  );
}

const CONCURRENT = 24;

describe.each(SURFACES)('Many audited mutations at once, over %s', (surface) => {
  it('answers each, and each one\'s record is readable right after its own answer', async () => {
    const ids = await Promise.all(Array.from({ length: CONCURRENT }, () => createMenu()));
    const results = await concurrently(surface, CONCURRENT, (index) => op.updatePortions(ids[index]!, 100 + index));
    for (const { index, requestId, outcome, records } of results) {
      expect(outcome.status, JSON.stringify(outcome.raw.body)).toBe(200);
      expect(outcome.code).toBeUndefined();
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ requestId, action: 'menus.update', target: { type: 'MealMenu', id: ids[index] }, outcome: 'success' });
    }
  });

  it('mixes successes and failures in one go, each recorded with its own outcome', async () => {
    const ids = await Promise.all(Array.from({ length: CONCURRENT / 2 }, () => createMenu()));
    const results = await concurrently(surface, CONCURRENT, (index) =>
      index % 2 === 0 ? op.updatePortions(ids[index / 2]!, 7) : op.updatePortions(unknownId(), 7),
    );
    for (const { index, outcome, records } of results) {
      expect(outcome.status).toBe(index % 2 === 0 ? 200 : 404);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ outcome: index % 2 === 0 ? 'success' : 'failure' });
    }
  });

  it('a record the database refuses fails only its own request: that one is logged and still answered, the others are stored', async () => {
    const ids = await Promise.all(Array.from({ length: CONCURRENT }, () => createMenu()));
    const taken = (await auditEvents().findOne({}, { projection: { _id: 1 } }))!._id;
    const refusedIndex = 5;
    const requestIds: string[] = [];
    // The database itself refuses the one record: it is sent with an _id already stored (a duplicate key).
    const bulkWrite = AuditEventModel.collection.bulkWrite.bind(AuditEventModel.collection);
    vi.spyOn(AuditEventModel.collection, 'bulkWrite').mockImplementation((operations, options) =>
      bulkWrite(
        operations.map((operation) => {
          const document = 'insertOne' in operation ? operation.insertOne.document : undefined;
          return document?.['requestId'] === requestIds[refusedIndex] ? { insertOne: { document: { ...document, _id: taken } } } : operation;
        }),
        options,
      ),
    );
    const results = await Promise.all(
      ids.map(async (id, index) => {
        const requestId = (requestIds[index] = newRequestId(surface));
        const outcome = await callOperation(app, surface, op.updatePortions(id, 40 + index), sending(admin, requestId));
        return { index, requestId, outcome, records: await recordsOf(requestId) };
      }),
    );
    for (const { index, requestId, outcome, records } of results) {
      expect(outcome.status, JSON.stringify(outcome.raw.body)).toBe(200);
      if (index === refusedIndex) {
        expect(records).toEqual([]);
        expect(errorLinesOf(requestId)).toHaveLength(1);
        expect(errorLinesOf(requestId)[0]).toMatchObject({ audit: { action: 'menus.update', outcome: 'success' }, err: { code: 11000 } });
      } else {
        expect(records).toHaveLength(1);
        expect(errorLinesOf(requestId)).toEqual([]);
      }
    }
    expect(await menus().findOne({ _id: new ObjectId(ids[refusedIndex]) })).toMatchObject({ estimatedPortions: 40 + refusedIndex });
  });
});
