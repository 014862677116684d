import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, expect } from 'vitest';
import { apiCase, callOperation, runCases, type ApiCase, type Caller, type Operation, type Surface } from '../support/surfaces.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Reading the audit trail (GET /audit-events, auditEvents) over REST and
 * GraphQL. The trail is written once, in beforeAll, by real meal-menu calls;
 * the cases only read it, so every case sees the same records.
 */

let app: TestApp;
const client = () => app;

const TENANT = 'tenant-trail';
const OTHER_TENANT = 'tenant-trail-other';
const THIRD_TENANT = 'tenant-trail-third';

let adminA: Caller & { id: string }; // TENANT admin
let adminB: Caller & { id: string }; // TENANT admin
let member: Caller; // TENANT member: no audit:read
let outsider: Caller & { id: string }; // OTHER_TENANT admin
let platform: Caller & { id: string }; // platform administrator
const nobody: Caller = {};
const badToken: Caller = { token: 'not-a-valid-credential' };

/** The menus the trail is about. */
let menuOne: string;
let menuTwo: string;

interface Event {
  _id: string;
  id: string;
  actor: { type: string; id: string };
  tenant_id: string | null;
  action: string;
  target: { type: string; id: string | null };
  changes: string[];
  requestId: string;
  ip: string;
  at: string;
  outcome: string;
}
type EventPage = { items: Event[]; nextCursor: string | null };

/** TENANT's events as stored, newest first; and every event of every tenant. */
let tenantEvents: Event[];
let allEventIds: string[];

// ---------------------------------------------------------------- operations

interface ListArgs {
  limit?: number;
  cursor?: string;
  actor?: string;
  action?: string;
  target?: string;
  from?: string;
  to?: string;
}

const EVENT_FIELDS = '_id id actor { type id } tenant_id action target { type id } changes requestId ip at outcome';

const op = {
  list(args: ListArgs = {}): Operation {
    const query = new URLSearchParams(Object.entries(args).map(([k, v]) => [k, String(v)])).toString();
    return {
      rest: { method: 'GET', path: `/audit-events${query ? `?${query}` : ''}` },
      graphql: {
        query: `query($limit: Int, $cursor: String, $actor: String, $action: String, $target: String,
            $from: DateTimeISO, $to: DateTimeISO) {
          auditEvents(limit: $limit, cursor: $cursor, actor: $actor, action: $action, target: $target, from: $from, to: $to) {
            items { ${EVENT_FIELDS} } nextCursor } }`,
        variables: { ...args },
      },
    };
  },
};

/** One REST call of the set-up (menus are written over REST only); throws unless it answered `status`. */
async function call(as: Caller & { id: string }, method: string, path: string, status: number, body?: unknown): Promise<any> {
  const response = await app.rest(method, path, { token: as.token, ...(body === undefined ? {} : { body }) });
  if (response.status !== status) throw new Error(`set-up ${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

const menuBody = (name: string, tenant_id?: string) => ({
  name,
  date: '2026-06-01',
  mealType: 'lunch',
  ...(tenant_id ? { tenant_id } : {}),
});

beforeAll(async () => {
  app = await startTestApp();
  const [a, b, m, o, p] = await Promise.all([
    app.createUser({ tenantId: TENANT }),
    app.createUser({ tenantId: TENANT }),
    app.createUser({ tenantId: TENANT, roles: ['member'] }),
    app.createUser({ tenantId: OTHER_TENANT }),
    app.createUser({ tenantId: null }),
  ]);
  adminA = { token: a.token, id: a.id };
  adminB = { token: b.token, id: b.id };
  member = { token: m.token };
  outsider = { token: o.token, id: o.id };
  platform = { token: p.token, id: p.id };

  // TENANT, oldest first: two creates, an update by someone else, a delete, a refused update.
  const menus = '/restaurant/meal-menus';
  menuOne = (await call(adminA, 'POST', menus, 201, menuBody('one'))).id;
  menuTwo = (await call(adminA, 'POST', menus, 201, menuBody('two'))).id;
  await call(adminB, 'PATCH', `${menus}/${menuOne}/estimated-portions/9`, 200);
  await call(adminA, 'DELETE', `${menus}/${menuTwo}`, 200);
  await call(adminA, 'PATCH', `${menus}/${new ObjectId().toHexString()}/estimated-portions/1`, 404);
  // One event in each other tenant.
  await call(outsider, 'POST', menus, 201, menuBody('elsewhere'));
  await call(platform, 'POST', menus, 201, menuBody('third', THIRD_TENANT));

  const stored = await app.db.collection('auditevents').find({}).sort({ _id: -1 }).toArray();
  allEventIds = stored.map((event) => event._id.toHexString());
  tenantEvents = stored
    .filter((event) => event['tenant_id'] === TENANT)
    .map((event) => ({ ...(event as unknown as Event), id: event._id.toHexString(), at: (event['at'] as Date).toISOString() }));
});

afterAll(async () => {
  await app?.close();
});

const ids = (page: EventPage) => page.items.map((event) => event.id);
const tenantIds = () => tenantEvents.map((event) => event.id);
const tenantEventsWhere = (keep: (event: Event) => boolean) => tenantEvents.filter(keep).map((event) => event.id);

/** Every page of `args` on one surface, walked by nextCursor. */
async function walk(surface: Surface, as: Caller, args: ListArgs): Promise<EventPage[]> {
  const pages: EventPage[] = [];
  let cursor: string | null | undefined;
  do {
    const outcome = await callOperation(app, surface, op.list({ ...args, ...(cursor ? { cursor } : {}) }), as);
    if (outcome.status !== 200) throw new Error(`page answered ${outcome.status}: ${JSON.stringify(outcome.raw.body)}`);
    const page = outcome.data as EventPage;
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor && pages.length < 20);
  return pages;
}

// ---------------------------------------------------------------------- list

runCases('Listing audit events (GET /audit-events, auditEvents)', client, [
  apiCase({
    name: "lists the caller tenant's events, newest first, on one page",
    caller: () => adminA,
    operation: () => op.list(),
    expect: {
      status: 200,
      data: (page: EventPage) => {
        expect(ids(page)).toEqual(tenantIds());
        expect(page.items.map((event) => `${event.action}:${event.outcome}`)).toEqual([
          'menus.update:failure',
          'menus.delete:success',
          'menus.update:success',
          'menus.create:success',
          'menus.create:success',
        ]);
        expect(page.nextCursor).toBeNull();
      },
    },
  }),
  apiCase({
    name: 'answers each event with every field of the record',
    caller: () => adminA,
    operation: () => op.list({ limit: 1, action: 'menus.update', actor: adminB.id }),
    expect: {
      status: 200,
      data: (page: EventPage) => {
        expect(page.items).toHaveLength(1);
        const [event] = page.items;
        expect(event).toEqual({
          _id: expect.stringMatching(/^[0-9a-f]{24}$/),
          id: event!._id,
          actor: { type: 'user', id: adminB.id },
          tenant_id: TENANT,
          action: 'menus.update',
          target: { type: 'MealMenu', id: menuOne },
          changes: ['portions'],
          requestId: expect.any(String),
          ip: expect.stringMatching(/127\.0\.0\.1$/),
          at: expect.any(String),
          outcome: 'success',
        });
        expect(new Date(event!.at).toISOString()).toBe(event!.at);
      },
    },
  }),
  apiCase({
    name: 'pages by limit with nextCursor, covering every event exactly once, in order',
    arrange: (surface) => walk(surface, adminA, { limit: 2 }),
    caller: () => adminA,
    operation: () => op.list({ limit: 100 }),
    expect: {
      status: 200,
      data: (all: EventPage, pages) => {
        expect(pages.map((page) => page.items.length)).toEqual([2, 2, 1]);
        expect(pages.at(-1)?.nextCursor).toBeNull();
        expect(pages.flatMap(ids)).toEqual(ids(all));
        expect(new Set(pages.flatMap(ids)).size).toBe(tenantEvents.length);
      },
    },
  }),
  apiCase({
    name: 'hands out a nextCursor when more events follow',
    caller: () => adminA,
    operation: () => op.list({ limit: 4 }),
    expect: {
      status: 200,
      data: (page: EventPage) => {
        expect(ids(page)).toEqual(tenantIds().slice(0, 4));
        expect(page.nextCursor).toEqual(expect.any(String));
      },
    },
  }),
]);

// ------------------------------------------------------------------- filters

runCases('Filtering audit events', client, [
  apiCase({
    name: 'by actor: only the events of that user',
    caller: () => adminA,
    operation: () => op.list({ actor: adminB.id }),
    expect: {
      status: 200,
      data: (page: EventPage) => {
        expect(ids(page)).toEqual(tenantEventsWhere((e) => e.actor.id === adminB.id));
        expect(page.items).toHaveLength(1);
      },
    },
  }),
  apiCase({
    name: 'by target: only the events about that record, newest first',
    caller: () => adminA,
    operation: () => op.list({ target: menuOne }),
    expect: {
      status: 200,
      data: (page: EventPage) => expect(page.items.map((e) => e.action)).toEqual(['menus.update', 'menus.create']),
    },
  }),
  apiCase({
    name: 'by action, exactly',
    caller: () => adminA,
    operation: () => op.list({ action: 'menus.create' }),
    expect: {
      status: 200,
      data: (page: EventPage) => {
        expect(ids(page)).toEqual(tenantEventsWhere((e) => e.action === 'menus.create'));
        expect(page.items).toHaveLength(2);
      },
    },
  }),
  apiCase({
    name: 'by action: a prefix matches nothing',
    caller: () => adminA,
    operation: () => op.list({ action: 'menus' }),
    expect: { status: 200, data: (page: EventPage) => expect(page.items).toEqual([]) },
  }),
  apiCase({
    name: 'from: the events at or after the instant, that instant included',
    caller: () => adminA,
    operation: () => op.list({ from: tenantEvents[2]!.at }),
    expect: {
      status: 200,
      data: (page: EventPage) => {
        expect(ids(page)).toContain(tenantEvents[2]!.id);
        expect(ids(page)).toEqual(tenantEventsWhere((e) => e.at >= tenantEvents[2]!.at));
      },
    },
  }),
  apiCase({
    name: 'to: the events at or before the instant, that instant included',
    caller: () => adminA,
    operation: () => op.list({ to: tenantEvents[2]!.at }),
    expect: {
      status: 200,
      data: (page: EventPage) => {
        expect(ids(page)).toContain(tenantEvents[2]!.id);
        expect(ids(page)).toEqual(tenantEventsWhere((e) => e.at <= tenantEvents[2]!.at));
      },
    },
  }),
  apiCase({
    name: 'from and to the same instant: the events of that instant',
    caller: () => adminA,
    operation: () => op.list({ from: tenantEvents[2]!.at, to: tenantEvents[2]!.at }),
    expect: {
      status: 200,
      data: (page: EventPage) => {
        expect(ids(page)).toContain(tenantEvents[2]!.id);
        expect(page.items.every((e) => e.at === tenantEvents[2]!.at)).toBe(true);
      },
    },
  }),
  apiCase({
    name: 'from an instant with an offset, read as that instant',
    caller: () => adminA,
    operation: () => op.list({ from: '2000-01-01T02:00:00+02:00', to: '2999-01-01T00:00:00Z' }),
    expect: { status: 200, data: (page: EventPage) => expect(ids(page)).toEqual(tenantIds()) },
  }),
  apiCase({
    name: 'reads an actor id in any letter case (ids are compared in lowercase)',
    caller: () => adminA,
    operation: () => op.list({ actor: adminA.id.toUpperCase(), action: 'menus.update' }),
    expect: { status: 200, data: (page: EventPage) => expect(page.items.map((event) => event.actor.id)).toEqual([adminA.id]) },
  }),
  apiCase({
    name: 'filters combine',
    caller: () => adminA,
    operation: () => op.list({ actor: adminA.id, action: 'menus.update' }),
    expect: {
      status: 200,
      data: (page: EventPage) => {
        expect(page.items).toHaveLength(1);
        expect(page.items[0]).toMatchObject({ outcome: 'failure', actor: { id: adminA.id } });
      },
    },
  }),
  ...(
    [
      ['a limit of 0', { limit: 0 }, 'limit', 'min'],
      ['a limit over 100', { limit: 101 }, 'limit', 'max'],
      ['a cursor it did not hand out', { cursor: 'garbage' }, 'cursor', 'isPageCursor'],
      ['an actor id that is no id', { actor: 'zz' }, 'actor', 'isMongoId'],
      ['an actor id over 24 characters', { actor: 'a'.repeat(201) }, 'actor', 'isMongoId'],
      ['a target id that is no id', { target: 'zz' }, 'target', 'isMongoId'],
      ['a target id of 25 hexadecimal characters', { target: 'a'.repeat(25) }, 'target', 'isMongoId'],
      ['an action over 200 characters', { action: 'a'.repeat(201) }, 'action', 'isLength'],
      ['a from that is no instant', { from: 'yesterday' }, 'from', 'type'],
      ['a to that is a day without a time', { to: '2026-06-01' }, 'to', 'type'],
    ] as const
  ).map(([why, args, field, rule]) =>
    apiCase({
      name: `refuses ${why} (400 ${field}/${rule})`,
      caller: () => adminA,
      operation: () => op.list(args),
      expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field, rule }] },
    }),
  ),
]);

// ------------------------------------------------------- who may read what

const UNAUTHENTICATED = { status: 401, code: 'UNAUTHENTICATED', headers: { 'www-authenticate': /^Bearer/ } };

const confinement: ApiCase<any>[] = [
  apiCase({
    name: "never shows a tenant admin another tenant's events",
    caller: () => outsider,
    operation: () => op.list(),
    expect: {
      status: 200,
      data: (page: EventPage) => {
        expect(page.items).toHaveLength(1);
        expect(page.items[0]).toMatchObject({ tenant_id: OTHER_TENANT, actor: { id: outsider.id } });
        expect(ids(page).filter((id) => tenantIds().includes(id))).toEqual([]);
      },
    },
  }),
  apiCase({
    name: "finds nothing when a tenant admin filters on another tenant's record",
    caller: () => outsider,
    operation: () => op.list({ target: menuOne }),
    expect: { status: 200, data: (page: EventPage) => expect(page.items).toEqual([]) },
  }),
  apiCase({
    name: "shows a platform administrator every tenant's events",
    caller: () => platform,
    operation: () => op.list({ limit: 100 }),
    expect: {
      status: 200,
      data: (page: EventPage) => {
        expect(ids(page)).toEqual(allEventIds);
        expect(new Set(page.items.map((e) => e.tenant_id))).toEqual(new Set([TENANT, OTHER_TENANT, THIRD_TENANT]));
      },
    },
  }),
  apiCase({
    name: 'refuses a caller without audit:read (403)',
    caller: () => member,
    operation: () => op.list(),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({ name: 'refuses a call without a credential (401)', caller: () => nobody, operation: () => op.list(), expect: UNAUTHENTICATED }),
  apiCase({ name: 'refuses a bad credential (401)', caller: () => badToken, operation: () => op.list(), expect: UNAUTHENTICATED }),
];

runCases('Who may read the audit trail', client, confinement);
