import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_THROTTLE_COLLECTION } from '../../src/auth/index.js';
import { callOperation, SURFACES, type Operation } from '../support/surfaces.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The bound on Argon2 work (config `passwordWork`): with one check at a time
 * and no waiting room, sign-ins arriving together past that turn are shed
 * with 503 and Retry-After on both surfaces, and are not counted by the
 * sign-in throttle. Each sign-in comes from an IP of its own so the
 * throttle lets every one through to the password check.
 */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ env: { TRUST_PROXY: 'loopback', PASSWORD_HASH_CONCURRENCY: '1', PASSWORD_HASH_QUEUE: '0' } });
});
afterAll(() => app?.close());

const LOGIN = `mutation Login($email: String!, $password: String!) { login(email: $email, password: $password) { accessToken } }`;
function login(email: string): Operation {
  const body = { email, password: 'Wr0ng-passw0rd' };
  return { rest: { method: 'POST', path: '/auth/login', body }, graphql: { query: LOGIN, variables: body } };
}

describe('the bound on password hashing', () => {
  it.each(SURFACES)('sheds sign-ins past it with 503 and Retry-After, counting none of them (%s)', async (surface) => {
    const together = 12;
    const emails = Array.from({ length: together }, (_, i) => `shed${i}@${surface}.work.test`);
    const outcomes = await Promise.all(
      emails.map((email, i) => callOperation(app, surface, login(email), { headers: { 'x-forwarded-for': `203.0.${SURFACES.indexOf(surface)}.${i + 1}` } })),
    );
    const shed = outcomes.filter((outcome) => outcome.status === 503);
    const checked = outcomes.filter((outcome) => outcome.status === 401);
    expect({ shed: shed.length > 0, checked: checked.length > 0, all: shed.length + checked.length }).toEqual({ shed: true, checked: true, all: together });
    for (const outcome of shed) {
      expect({ code: outcome.code, retryAfter: outcome.raw.headers.get('retry-after'), message: outcome.message }).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        retryAfter: '1',
        message: 'Too many sign-ins and password changes at once; try again shortly',
      });
    }
    // A shed attempt checked no password: its email's counter holds no failure.
    const counted = await app.db
      .collection<{ _id: string; failures: number }>(LOGIN_THROTTLE_COLLECTION)
      .countDocuments({ _id: { $regex: `^account:shed\\d+@${surface}[.]work[.]test$` }, failures: { $gt: 0 } });
    expect(counted).toBe(checked.length);
  });
});
