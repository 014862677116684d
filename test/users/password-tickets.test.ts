import { createHash } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { LOGIN_THROTTLE_COLLECTION } from '../../src/auth/index.js';
import { PASSWORD_TICKET_COLLECTION, REPLAYED_WITHOUT_TICKET } from '../../src/users/index.js';
import { apiCase, callOperation, runCases, SURFACES, type Caller, type Operation } from '../support/surfaces.js';
import {
  admin,
  app,
  client,
  manager,
  member,
  nobody,
  outsider,
  platform,
  signInStatus,
  storedById,
  tenantUser,
  TENANT,
  unknownId,
  useUsersApp,
} from './user-fixtures.js';

/**
 * One-time password tickets (contract "Users: disabling, deleting,
 * sessions"): createPasswordTicket / POST /access-control/users/{id}/password-ticket
 * and redeemPasswordTicket / POST /auth/password-ticket, over both surfaces.
 * The ticket is shown once, stored only as its SHA-256, spent by one
 * conditional write; redeeming sets the password and ends every earlier token.
 * Logs, audit records and other answers: password-ticket-secrets.test.ts;
 * the throttle: test/auth/password-ticket-throttle.test.ts.
 */

useUsersApp();

const TICKET = /^pt_[\w-]{43}$/;
const NEW_PASSWORD = 'N3w-Passw0rd!';

const op = {
  create(id: string, ttlSeconds?: unknown): Operation {
    const body = ttlSeconds === undefined ? undefined : { ttlSeconds };
    return {
      rest: { method: 'POST', path: `/access-control/users/${id}/password-ticket`, body },
      graphql: {
        query: 'mutation($id: ID!, $ttlSeconds: Int) { createPasswordTicket(id: $id, ttlSeconds: $ttlSeconds) { ticket expiresAt } }',
        variables: { id, ...body },
      },
    };
  },
  redeem(ticket: unknown, newPassword: unknown = NEW_PASSWORD): Operation {
    return {
      rest: { method: 'POST', path: '/auth/password-ticket', body: { ticket, newPassword } },
      graphql: {
        query: 'mutation($ticket: String!, $newPassword: String!) { redeemPasswordTicket(ticket: $ticket, newPassword: $newPassword) { email tenantId } }',
        variables: { ticket, newPassword },
      },
    };
  },
};

const tickets = () => app.db.collection(PASSWORD_TICKET_COLLECTION);
const hashOf = (ticket: string) => createHash('sha256').update(ticket).digest('hex');
const ticketsOf = (userId: string) => tickets().find({ userId }).toArray();

/** A ticket made through the API for `userId` by the tenant's administrator. */
async function ticketFor(userId: string, ttlSeconds?: number): Promise<string> {
  const answer = await app.rest('POST', `/access-control/users/${userId}/password-ticket`, { token: admin.token, body: ttlSeconds ? { ttlSeconds } : undefined });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.ticket as string;
}

/** A member of TENANT with a ticket, and what their record held before. */
async function memberWithTicket() {
  const made = await tenantUser();
  return { ...made, ticket: await ticketFor(made.id) };
}

const readMe = (token: string) => app.rest('GET', '/auth/me', { token });

/** An API key of the tenant's administrator with users:update and users:read: acting for them. */
async function adminKey(): Promise<Caller> {
  const made = await app.rest('POST', '/api-keys', { token: admin.token, body: { name: `tickets-${Date.now().toString(36)}`, scopes: ['users:update', 'users:read'] } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return { headers: { 'X-API-Key': made.body.key } };
}

const secondsFromNow = (at: string) => (new Date(at).getTime() - Date.now()) / 1000;

// ---------------------------------------------------------------- createPasswordTicket

runCases('making a password ticket (POST /access-control/users/{id}/password-ticket, createPasswordTicket)', client, [
  apiCase({
    name: 'answers the ticket once with its expiry (a day by default); only its hash is stored',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => op.create(id),
    expect: {
      status: 201,
      data: (answer) => {
        expect(answer.ticket).toMatch(TICKET);
        expect(secondsFromNow(answer.expiresAt)).toBeGreaterThan(86_400 - 60);
        expect(secondsFromNow(answer.expiresAt)).toBeLessThanOrEqual(86_400);
      },
      db: async ({ id }, outcome) => {
        const { ticket } = outcome.data as { ticket: string };
        const stored = await ticketsOf(id);
        expect(stored).toHaveLength(1);
        expect(stored[0]).toMatchObject({ hash: hashOf(ticket), userId: id, tenant_id: TENANT, createdBy: admin.id });
        expect(JSON.stringify(stored)).not.toContain(ticket.slice(3));
      },
    },
  }),
  apiCase({
    name: 'takes ttlSeconds from 60',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => op.create(id, 60),
    expect: { status: 201, data: (answer) => expect(secondsFromNow(answer.expiresAt)).toBeLessThanOrEqual(60) },
  }),
  apiCase({
    name: 'takes ttlSeconds up to 604800 (a week)',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => op.create(id, 604_800),
    expect: { status: 201, data: (answer) => expect(secondsFromNow(answer.expiresAt)).toBeGreaterThan(604_800 - 60) },
  }),
  ...([
    [59, 'min'],
    [604_801, 'max'],
  ] as const).map(([ttl, rule]) =>
    apiCase({
      name: `refuses ttlSeconds ${ttl} with 400 naming it (${rule}), storing nothing`,
      arrange: () => tenantUser(),
      caller: () => admin,
      operation: ({ id }) => op.create(id, ttl),
      expect: { status: 400, fieldErrors: [{ field: 'ttlSeconds', rule }], db: async ({ id }) => expect(await ticketsOf(id)).toEqual([]) },
    }),
  ),
  apiCase({
    name: 'lets an API key with users:update make one for another user holding nothing beyond its scopes',
    arrange: async () => ({ ...(await tenantUser({ roles: [] })), key: await adminKey() }),
    caller: ({ key }) => key,
    operation: ({ id }) => op.create(id),
    expect: { status: 201, data: (answer) => expect(answer.ticket).toMatch(TICKET) },
  }),
  apiCase({
    name: 'refuses an API key one for the user it acts for (403): credentials change only in person',
    arrange: () => adminKey(),
    caller: (key) => key,
    operation: () => op.create(admin.id),
    expect: { status: 403, code: 'FORBIDDEN', db: async () => expect(await ticketsOf(admin.id)).toEqual([]) },
  }),
  apiCase({
    name: 'refuses one for a user holding permissions the caller lacks (403 naming them), storing nothing',
    arrange: () => tenantUser({ roles: ['admin'] }),
    caller: () => manager,
    operation: ({ id }) => op.create(id),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      db: async ({ id }, outcome) => {
        expect(outcome.message).toBe(
          "Changing the password of a user who holds permissions you do not hold is not allowed (a ticket lets its holder sign in as them): '*' (role admin)",
        );
        expect(await ticketsOf(id)).toEqual([]);
      },
    },
  }),
  apiCase({
    name: 'lets a caller holding all the user holds make one',
    arrange: () => tenantUser({ roles: ['member'] }),
    caller: () => manager,
    operation: ({ id }) => op.create(id),
    expect: { status: 201 },
  }),
  apiCase({
    name: 'refuses a caller without users:update (403)',
    arrange: () => tenantUser(),
    caller: () => member,
    operation: ({ id }) => op.create(id),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ id }) => expect(await ticketsOf(id)).toEqual([]) },
  }),
  apiCase({
    name: "another tenant's user is 404",
    arrange: () => tenantUser(),
    caller: () => outsider,
    operation: ({ id }) => op.create(id),
    expect: { status: 404, code: 'NOT_FOUND', db: async ({ id }) => expect(await ticketsOf(id)).toEqual([]) },
  }),
  apiCase({
    name: 'an unknown user is 404',
    caller: () => platform,
    operation: () => op.create(unknownId()),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'a malformed id is 400 naming id',
    caller: () => admin,
    operation: () => op.create('nope'),
    expect: { status: 400, fieldErrors: [{ field: 'id', rule: 'isMongoId' }] },
  }),
  apiCase({
    name: 'needs a credential (401)',
    arrange: () => tenantUser(),
    caller: () => nobody,
    operation: ({ id }) => op.create(id),
    expect: { status: 401, code: 'UNAUTHENTICATED' },
  }),
]);

// ---------------------------------------------------------------- redeemPasswordTicket

runCases('redeeming a password ticket (POST /auth/password-ticket, redeemPasswordTicket)', client, [
  apiCase({
    name: 'sets the password, ends earlier tokens, spends the ticket and answers how to sign in',
    arrange: () => memberWithTicket(),
    caller: () => nobody,
    operation: ({ ticket }) => op.redeem(ticket),
    expect: {
      status: 200,
      data: (answer, { user }) => expect(answer).toEqual({ email: user.email, tenantId: TENANT }),
      db: async ({ id, user, before }) => {
        expect(await signInStatus(user.email, NEW_PASSWORD)).toBe(200);
        expect(await signInStatus(user.email, user.password)).toBe(401);
        expect((await readMe(user.token)).status).toBe(401);
        expect((await storedById(id))?.tokenVersion).toBe((before?.tokenVersion ?? 0) + 1);
        expect(await ticketsOf(id)).toEqual([]);
      },
    },
  }),
  apiCase({
    name: 'refuses a second use of the ticket (401), changing nothing',
    arrange: async () => {
      const made = await memberWithTicket();
      expect((await app.rest('POST', '/auth/password-ticket', { body: { ticket: made.ticket, newPassword: NEW_PASSWORD } })).status).toBe(200);
      return { ...made, after: await storedById(made.id) };
    },
    caller: () => nobody,
    operation: ({ ticket }) => op.redeem(ticket, 'An0ther-Passw0rd!'),
    expect: {
      status: 401,
      code: 'UNAUTHENTICATED',
      db: async ({ id, after }, outcome) => {
        expect(outcome.message).toBe('Invalid or expired password ticket');
        expect(await storedById(id)).toEqual(after);
      },
    },
  }),
  apiCase({
    name: 'refuses an unknown ticket with the same 401',
    caller: () => nobody,
    operation: () => op.redeem(`pt_${'A'.repeat(43)}`),
    expect: { status: 401, code: 'UNAUTHENTICATED', db: async (_f, outcome) => expect(outcome.message).toBe('Invalid or expired password ticket') },
  }),
  apiCase({
    name: 'refuses an expired ticket (not yet swept) with the same 401, changing nothing',
    arrange: async () => {
      const made = await memberWithTicket();
      await tickets().updateOne({ hash: hashOf(made.ticket) }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
      return made;
    },
    caller: () => nobody,
    operation: ({ ticket }) => op.redeem(ticket),
    expect: {
      status: 401,
      code: 'UNAUTHENTICATED',
      db: async ({ id, before, user }, outcome) => {
        expect(outcome.message).toBe('Invalid or expired password ticket');
        expect(await storedById(id)).toEqual(before);
        expect(await signInStatus(user.email, user.password)).toBe(200);
      },
    },
  }),
  apiCase({
    name: 'refuses a password the rules refuse with 400 naming newPassword, leaving the ticket unspent',
    arrange: () => memberWithTicket(),
    caller: () => nobody,
    operation: ({ ticket }) => op.redeem(ticket, 'short'),
    expect: {
      status: 400,
      db: async ({ id, before, ticket }, outcome) => {
        expect(outcome.fieldErrors.map((error) => error.field)).toEqual(['newPassword']);
        expect(await storedById(id)).toEqual(before);
        // Still good for a password the rules take.
        expect((await app.rest('POST', '/auth/password-ticket', { body: { ticket, newPassword: NEW_PASSWORD } })).status).toBe(200);
      },
    },
  }),
  apiCase({
    name: 'refuses the ticket of a user disabled meanwhile (401), changing nothing',
    arrange: async () => {
      const made = await memberWithTicket();
      await app.db.collection('users').updateOne({ _id: new ObjectId(made.id) }, { $set: { status: 'disabled' } });
      return { ...made, before: await storedById(made.id) };
    },
    caller: () => nobody,
    operation: ({ ticket }) => op.redeem(ticket),
    expect: { status: 401, code: 'UNAUTHENTICATED', db: async ({ id, before }) => expect(await storedById(id)).toEqual(before) },
  }),
  apiCase({
    name: 'refuses the ticket of a user deleted meanwhile (401)',
    arrange: async () => {
      const made = await memberWithTicket();
      await app.db.collection('users').updateOne({ _id: new ObjectId(made.id) }, { $set: { status: 'deleted', deletedAt: new Date() } });
      return { ...made, before: await storedById(made.id) };
    },
    caller: () => nobody,
    operation: ({ ticket }) => op.redeem(ticket),
    expect: { status: 401, code: 'UNAUTHENTICATED', db: async ({ id, before }) => expect(await storedById(id)).toEqual(before) },
  }),
  apiCase({
    name: 'refuses an empty ticket with 400 naming ticket',
    caller: () => nobody,
    operation: () => op.redeem(''),
    expect: { status: 400, fieldErrors: [{ field: 'ticket', rule: 'isNotEmpty' }] },
  }),
  apiCase({
    name: 'needs no credential, and a bad one is not looked at',
    arrange: () => memberWithTicket(),
    caller: () => ({ token: 'not-a-valid-credential' }),
    operation: ({ ticket }) => op.redeem(ticket),
    expect: { status: 200 },
  }),
]);

describe('redeeming one ticket concurrently', () => {
  it.each(SURFACES)('lets exactly one of 8 concurrent redeems through; the others are 401 (%s)', async (surface) => {
    const { ticket, user } = await memberWithTicket();
    // The failures of the cases above count on this IP's sign-in throttle: start it over, so every loser is a 401, not a 429.
    await app.db.collection(LOGIN_THROTTLE_COLLECTION).deleteMany({});
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, n) => callOperation(client(), surface, op.redeem(ticket, `C0ncurrent-${n}!`), nobody)));
    const statuses = outcomes.map((outcome) => outcome.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 401)).toHaveLength(7);
    const winner = statuses.indexOf(200);
    expect(await signInStatus(user.email, `C0ncurrent-${winner}!`)).toBe(200);
  });
});

describe('a redeemed ticket', () => {
  it("also spends the user's other tickets: their password was just set", async () => {
    const { id, ticket } = await memberWithTicket();
    const other = await ticketFor(id);
    expect((await app.rest('POST', '/auth/password-ticket', { body: { ticket, newPassword: NEW_PASSWORD } })).status).toBe(200);
    expect((await app.rest('POST', '/auth/password-ticket', { body: { ticket: other, newPassword: 'An0ther-Passw0rd!' } })).status).toBe(401);
  });
});

describe('stored tickets', () => {
  it('are swept by a TTL index on expiresAt', async () => {
    await ticketFor((await tenantUser()).id);
    const indexes = await tickets().indexes();
    expect(indexes).toContainEqual(expect.objectContaining({ key: { expiresAt: 1 }, expireAfterSeconds: 0 }));
    expect(indexes).toContainEqual(expect.objectContaining({ key: { hash: 1 }, unique: true }));
  });
});

describe('Idempotency-Key on createPasswordTicket', () => {
  it.each(SURFACES)('replays the answer without the ticket, storing no ticket, and makes one ticket of concurrent repeats (%s)', async (surface) => {
    const { id } = await tenantUser();
    const key = `ticket-${Date.now().toString(36)}-${surface}`;
    const withKey = { ...admin, headers: { 'Idempotency-Key': key } };
    const answers = await Promise.all(Array.from({ length: 4 }, () => callOperation(client(), surface, op.create(id, 600), withKey)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(4).fill(surface === 'rest' ? 201 : 200));
    const first = answers.find((answer) => answer.raw.headers.get('idempotent-replayed') === null)!;
    const replays = answers.filter((answer) => answer !== first);
    const issued = first.data as { ticket: string; expiresAt: string };
    expect(issued.ticket).toMatch(TICKET);
    for (const replay of replays) {
      expect(replay.raw.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.data).toEqual({ ...issued, ticket: null, detail: REPLAYED_WITHOUT_TICKET });
    }
    expect(await ticketsOf(id)).toHaveLength(1);
    expect(JSON.stringify(await app.db.collection('idempotencykeys').find().toArray())).not.toContain(issued.ticket);
    // Another body with the key: 422, nothing made.
    const reused = await callOperation(client(), surface, op.create(id, 900), withKey);
    expect(reused.status).toBe(422);
    expect(await ticketsOf(id)).toHaveLength(1);
  });
});
