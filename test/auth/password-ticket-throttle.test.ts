import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LOGIN_THROTTLE_COLLECTION } from '../../src/auth/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { callOperation, SURFACES, type Operation } from '../support/surfaces.js';

/**
 * Redeeming password tickets is throttled as sign-in is (contract: "throttled
 * like sign-in"): failures from one IP count on the sign-in throttle's IP
 * counter; past its free failures (LOGIN_IP_FAILURES, 3 here) the next
 * attempt is 429 with Retry-After, tries no ticket and spends none; sign-in
 * from that IP waits too, and the other way round.
 */

const TENANT = 'tenant-ticket-throttle';
let app: TestApp;
let admin: TestUser;
let target: TestUser;
beforeAll(async () => {
  app = await startTestApp({ env: { LOGIN_IP_FAILURES: '3', LOGIN_ACCOUNT_FAILURES: '50' } });
  admin = await app.createUser({ tenantId: TENANT, roles: ['admin'] });
  target = await app.createUser({ tenantId: TENANT, roles: ['member'] });
});
afterAll(() => app?.close());
beforeEach(() => app.db.collection(LOGIN_THROTTLE_COLLECTION).deleteMany({}));

const redeem = (ticket: string, newPassword = 'N3w-Passw0rd!'): Operation => ({
  rest: { method: 'POST', path: '/auth/password-ticket', body: { ticket, newPassword } },
  graphql: {
    query: 'mutation($ticket: String!, $newPassword: String!) { redeemPasswordTicket(ticket: $ticket, newPassword: $newPassword) { email } }',
    variables: { ticket, newPassword },
  },
});
const unknownTicket = (n: number) => `pt_${String(n).padStart(43, 'x')}`;

async function newTicket(): Promise<string> {
  const answer = await app.rest('POST', `/access-control/users/${target.id}/password-ticket`, { token: admin.token });
  expect(answer.status).toBe(201);
  return answer.body.ticket;
}

describe.each(SURFACES)('over %s', (surface) => {
  it('answers 429 with Retry-After after the free failures, trying and spending no ticket', async () => {
    const ticket = await newTicket();
    for (let n = 0; n < 3; n += 1) expect((await callOperation(app, surface, redeem(unknownTicket(n)))).status).toBe(401);
    const refused = await callOperation(app, surface, redeem(ticket));
    expect(refused.status).toBe(429);
    expect(refused.code).toBe('RATE_LIMITED');
    expect(Number(refused.raw.headers.get('retry-after'))).toBeGreaterThan(0);
    // Not spent: once the wait is over (started over here), it still works.
    await app.db.collection(LOGIN_THROTTLE_COLLECTION).deleteMany({});
    expect((await callOperation(app, surface, redeem(ticket))).status).toBe(200);
  });

  it('shares the IP counter with sign-in: ticket failures make sign-in wait', async () => {
    for (let n = 0; n < 4; n += 1) await callOperation(app, surface, redeem(unknownTicket(n)));
    const signIn = await app.rest('POST', '/auth/login', { body: { email: target.email, password: target.password, tenantId: TENANT } });
    expect(signIn.status).toBe(429);
  });

  it('a good redeem gives its attempt back: redeems within the free failures never wait', async () => {
    for (let round = 0; round < 4; round += 1) expect((await callOperation(app, surface, redeem(await newTicket(), `R0und-${round}-pass!`))).status).toBe(200);
  });
});
