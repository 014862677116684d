import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_EVENT_COLLECTION } from '../../src/audit/index.js';
import { createLogger } from '../../src/logger.js';
import { startTestApp, type TestApp, type TestResponse, type TestUser } from '../support/test-app.js';

/**
 * A password ticket is shown once, in the answer that issues it, and
 * nowhere else: not in the log (at its most talkative level), not in the
 * audit trail, not in a replayed answer, not in any refusal. The flow below
 * makes tickets over both surfaces, replays one, redeems them (refused and
 * good), then reads every log line, every audit record and every other answer.
 */

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});

const TENANT = 'tenant-ticket-secrets';
let app: TestApp;
let admin: TestUser;
let target: TestUser;
beforeAll(async () => {
  app = await startTestApp({ logger: createLogger({ logLevel: 'trace' }, sink) });
  admin = await app.createUser({ tenantId: TENANT, roles: ['admin'] });
  target = await app.createUser({ tenantId: TENANT, roles: ['member'] });
});
afterAll(() => app?.close());

const CREATE = 'mutation($id: ID!, $ttlSeconds: Int) { createPasswordTicket(id: $id, ttlSeconds: $ttlSeconds) { ticket expiresAt } }';
const REDEEM = 'mutation($ticket: String!, $newPassword: String!) { redeemPasswordTicket(ticket: $ticket, newPassword: $newPassword) { email tenantId } }';

describe('a password ticket', () => {
  const issued: string[] = [];
  const otherAnswers: TestResponse[] = [];

  beforeAll(async () => {
    // Issued over REST with an Idempotency-Key, and replayed.
    const headers = { 'Idempotency-Key': 'secrets-ticket-1' };
    const first = await app.rest('POST', `/access-control/users/${target.id}/password-ticket`, { token: admin.token, body: { ttlSeconds: 600 }, headers });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    issued.push(first.body.ticket);
    otherAnswers.push(await app.rest('POST', `/access-control/users/${target.id}/password-ticket`, { token: admin.token, body: { ttlSeconds: 600 }, headers }));
    // Issued over GraphQL.
    const second = await app.graphql(CREATE, { id: target.id }, { token: admin.token });
    issued.push(second.body.data.createPasswordTicket.ticket);
    const [rest, graphql] = issued;

    // Refusals: a bad password (REST; GraphQL with the ticket written into the document), a bad one again.
    otherAnswers.push(await app.rest('POST', '/auth/password-ticket', { body: { ticket: rest, newPassword: 'short' } }));
    otherAnswers.push(await app.graphql(`mutation { redeemPasswordTicket(ticket: "${graphql}", newPassword: "short") { email } }`));
    otherAnswers.push(await app.graphql(`mutation { redeemPasswordTicket(ticket: "${graphql}", newPassword: 7) { email } }`));
    // A good redeem over each surface, then each ticket again (spent: 401).
    otherAnswers.push(await app.rest('POST', '/auth/password-ticket', { body: { ticket: rest, newPassword: 'N3w-Passw0rd!' } }));
    otherAnswers.push(await app.graphql(REDEEM, { ticket: rest, newPassword: 'N3w-Passw0rd!' }));
    otherAnswers.push(await app.rest('POST', '/auth/password-ticket', { body: { ticket: graphql, newPassword: 'N3w-Passw0rd!' } }));
    expect(otherAnswers.map((answer) => answer.status)).toEqual([201, 400, 400, 400, 200, 401, 401]);
    // Both tickets were spent above (the second by the REST redeem of `rest`, which drops the user's other tickets).
    await new Promise((resolve) => setTimeout(resolve, 50));
  });

  /** A ticket or its random part (without the pt_ prefix), anywhere in `text`. */
  const holdsATicket = (text: string) => issued.some((ticket) => text.includes(ticket.slice(3)));

  it('is issued in the shape the log redacts', () => {
    expect(issued).toHaveLength(2);
    for (const ticket of issued) expect(ticket).toMatch(/^pt_[\w-]{43}$/);
  });

  it('is in no other answer: not the replay, not a refusal, not a redeem', () => {
    for (const answer of otherAnswers) expect(holdsATicket(JSON.stringify(answer.body)), JSON.stringify(answer.body)).toBe(false);
    expect(otherAnswers[0].body).toMatchObject({ ticket: null });
  });

  it('is in no log line', () => {
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter(holdsATicket)).toEqual([]);
  });

  it('is in no audit record, which names the call without it', async () => {
    const records = await app.db.collection(AUDIT_EVENT_COLLECTION).find({ action: { $in: ['users.password-ticket', 'auth.password-ticket-redeem'] } }).toArray();
    expect(holdsATicket(JSON.stringify(records))).toBe(false);
    const made = records.filter((record) => record.action === 'users.password-ticket' && record.outcome === 'success');
    expect(made).toHaveLength(2);
    expect(made[0]).toMatchObject({ actor: { type: 'user', id: admin.id }, target: { type: 'User', id: target.id }, tenant_id: TENANT });
    const redeemed = records.filter((record) => record.action === 'auth.password-ticket-redeem');
    expect(redeemed).toEqual([
      expect.objectContaining({ actor: { type: 'user', id: target.id }, target: { type: 'User', id: target.id }, tenant_id: TENANT, changes: ['password'], outcome: 'success' }),
    ]);
  });

  it('is redacted from a log line by its field name and by its shape', () => {
    const captured: string[] = [];
    const logger = createLogger({ logLevel: 'info' }, new Writable({ write: (chunk, _e, done) => void (captured.push(String(chunk)), done()) }));
    const ticket = issued[0];
    logger.info({ body: { ticket }, note: `sent ${ticket} by mail`, url: `/x?t=${ticket}` }, `ticket ${ticket.slice(0, 25)}`);
    expect(captured.join('')).not.toContain(ticket.slice(3, 19));
  });
});
