import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { accountThrottleKey, FIRST_WAIT_SECONDS, ipThrottleKey, LOGIN_THROTTLE_COLLECTION } from '../../src/auth/index.js';
import * as password from '../../src/auth/password.js';
import { apiCase, callOperation, runCases, SURFACES, type Caller, type Operation, type Surface } from '../support/surfaces.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * Sign-in throttling (`POST /auth/login`, mutation `login`): failures per
 * email and per client IP, counted in the database, then 429 with
 * Retry-After and no password check. Small limits keep the Argon2 work down;
 * each case signs in from IPs of its own (X-Forwarded-For, believed from the
 * loopback through TRUST_PROXY), so cases and surfaces do not share counters.
 */

const ACCOUNT_FAILURES = 3;
const IP_FAILURES = 6;
const WRONG = 'Wr0ng-passw0rd';

let app: TestApp;
const verifications = vi.spyOn(password, 'verifyPassword');

beforeAll(async () => {
  app = await startTestApp({
    env: { TRUST_PROXY: 'loopback', LOGIN_ACCOUNT_FAILURES: String(ACCOUNT_FAILURES), LOGIN_IP_FAILURES: String(IP_FAILURES) },
  });
});
afterAll(() => {
  verifications.mockRestore();
  return app?.close();
});

const LOGIN = `mutation Login($email: String!, $password: String!, $tenantId: String) {
  login(email: $email, password: $password, tenantId: $tenantId) { accessToken }
}`;

function login(email: string, secret: string, tenantId?: string): Operation {
  const body = { email, password: secret, ...(tenantId === undefined ? {} : { tenantId }) };
  return { rest: { method: 'POST', path: '/auth/login', body }, graphql: { query: LOGIN, variables: body } };
}

let ips = 0;
/** A client IP no other case uses. */
function freshIp(): string {
  ips += 1;
  return `198.51.${Math.floor(ips / 250)}.${(ips % 250) + 1}`;
}
const from = (ip: string): Caller => ({ headers: { 'x-forwarded-for': ip } });

let emails = 0;
const unknownEmail = () => `nobody${(emails += 1)}@throttle.test`;

/** Signs in over the surface, asserting the status of each answer. */
async function attempts(surface: Surface, statuses: number[], email: string, secret: string, ip: string, tenantId?: string): Promise<void> {
  for (const status of statuses) {
    const outcome = await callOperation(app, surface, login(email, secret, tenantId), from(ip));
    expect(outcome.status, `${surface} answered ${JSON.stringify(outcome.raw.body)}`).toBe(status);
  }
}
const times = (count: number, status: number) => Array<number>(count).fill(status);

const counters = () => app.db.collection<{ _id: string; failures: number; lockedUntil: Date; expireAt: Date }>(LOGIN_THROTTLE_COLLECTION);

/** 429 with a Retry-After of the first wait (at most), the same words for every email, no password checked. */
const throttled = {
  status: 429,
  code: 'RATE_LIMITED',
  headers: { 'retry-after': /^\d+$/ },
  data: (_data: unknown, _fixture: unknown, outcome: { message?: string; raw: { headers: Headers } }) => {
    const retryAfter = Number(outcome.raw.headers.get('retry-after'));
    expect({ inRange: retryAfter >= 1 && retryAfter <= FIRST_WAIT_SECONDS, message: outcome.message }).toEqual({
      inRange: true,
      message: `Too many failed sign-in attempts; try again in ${retryAfter} s`,
    });
  },
  db: () => {
    expect(verifications).not.toHaveBeenCalled();
  },
};
const refused = { status: 401, code: 'UNAUTHENTICATED' };

interface Fixture {
  user: TestUser;
  ip: string;
}

async function freshUser(): Promise<TestUser> {
  return app.createUser({ tenantId: 'tenant-throttle', roles: ['member'] });
}

runCases('sign-in throttling', () => app, [
  apiCase({
    name: `answers 401 to the first ${ACCOUNT_FAILURES} failures for an email`,
    arrange: async (surface): Promise<Fixture> => {
      const fixture = { user: await freshUser(), ip: freshIp() };
      await attempts(surface, times(ACCOUNT_FAILURES - 1, 401), fixture.user.email, WRONG, fixture.ip);
      return fixture;
    },
    caller: ({ ip }) => from(ip),
    operation: ({ user }) => login(user.email, WRONG),
    expect: refused,
  }),
  apiCase({
    name: 'then refuses the email with 429 and Retry-After, from any IP, checking no password',
    arrange: async (surface): Promise<Fixture> => {
      const fixture = { user: await freshUser(), ip: freshIp() };
      await attempts(surface, times(ACCOUNT_FAILURES, 401), fixture.user.email, WRONG, freshIp());
      verifications.mockClear();
      return fixture;
    },
    caller: ({ ip }) => from(ip),
    operation: ({ user }) => login(user.email, WRONG),
    expect: throttled,
  }),
  apiCase({
    name: 'throttles an email no account has exactly the same way',
    arrange: async (surface) => {
      const fixture = { email: unknownEmail(), ip: freshIp() };
      await attempts(surface, times(ACCOUNT_FAILURES, 401), fixture.email, WRONG, freshIp());
      verifications.mockClear();
      return fixture;
    },
    caller: ({ ip }) => from(ip),
    operation: ({ email }) => login(email, WRONG),
    expect: throttled,
  }),
  apiCase({
    name: 'counts every spelling of an email on one counter (case)',
    arrange: async (surface): Promise<Fixture> => {
      const fixture = { user: await freshUser(), ip: freshIp() };
      await attempts(surface, times(ACCOUNT_FAILURES, 401), fixture.user.email.toUpperCase(), WRONG, freshIp());
      verifications.mockClear();
      return fixture;
    },
    caller: ({ ip }) => from(ip),
    operation: ({ user }) => login(user.email, WRONG),
    expect: throttled,
  }),
  apiCase({
    name: 'refuses spellings with characters the lookup ignores (soft hyphen, zero-width space, tatweel) with 400, before counting them',
    arrange: async (surface): Promise<Fixture & { spelling: string }> => {
      const fixture = { user: await freshUser(), ip: freshIp() };
      const [local, domain] = fixture.user.email.split('@');
      // The account lookup's collation ignores these characters: each spelling would reach the same account.
      for (const invisible of ['\u00AD', '\u200B', '\u2060']) {
        await attempts(surface, [400], `${local.slice(0, 2)}${invisible}${local.slice(2)}@${domain}`, WRONG, fixture.ip);
      }
      verifications.mockClear();
      return { ...fixture, spelling: `${local.slice(0, 2)}\u0640${local.slice(2)}@${domain}` };
    },
    caller: ({ ip }) => from(ip),
    operation: ({ user, spelling }) => login(spelling, user.password),
    expect: {
      status: 400,
      fieldErrors: [{ field: 'email', rule: 'hasNoIgnoredCharacter' }],
      db: async ({ user, ip }) => {
        expect(verifications).not.toHaveBeenCalled();
        expect(await counters().countDocuments({ _id: { $in: [accountThrottleKey(user.email), ipThrottleKey(ip)] } })).toBe(0);
      },
    },
  }),
  apiCase({
    name: 'refuses the right password while the wait lasts (429, no password checked)',
    arrange: async (surface): Promise<Fixture> => {
      const fixture = { user: await freshUser(), ip: freshIp() };
      await attempts(surface, times(ACCOUNT_FAILURES, 401), fixture.user.email, WRONG, fixture.ip);
      verifications.mockClear();
      return fixture;
    },
    caller: ({ ip }) => from(ip),
    operation: ({ user }) => login(user.email, user.password),
    expect: throttled,
  }),
  apiCase({
    name: 'signs another email in from another IP meanwhile',
    arrange: async (surface) => {
      const throttledUser = await freshUser();
      await attempts(surface, [...times(ACCOUNT_FAILURES, 401), 429], throttledUser.email, WRONG, freshIp());
      return { user: await freshUser(), ip: freshIp() };
    },
    caller: ({ ip }) => from(ip),
    operation: ({ user }) => login(user.email, user.password),
    expect: { status: 200 },
  }),
  apiCase({
    name: `refuses an IP with 429 after ${IP_FAILURES} failures over different emails, even for the right password`,
    arrange: async (surface): Promise<Fixture> => {
      const fixture = { user: await freshUser(), ip: freshIp() };
      for (let i = 0; i < IP_FAILURES; i += 1) await attempts(surface, [401], unknownEmail(), WRONG, fixture.ip);
      verifications.mockClear();
      return fixture;
    },
    caller: ({ ip }) => from(ip),
    operation: ({ user }) => login(user.email, user.password),
    expect: throttled,
  }),
  apiCase({
    name: 'counts the addresses of one IPv6 /64 as one client',
    arrange: async (surface): Promise<Fixture> => {
      const prefix = `2001:db8:${(ips += 1).toString(16)}:7`;
      for (let i = 0; i < IP_FAILURES; i += 1) await attempts(surface, [401], unknownEmail(), WRONG, `${prefix}::${i + 1}`);
      verifications.mockClear();
      return { user: await freshUser(), ip: `${prefix}:ffff:0:0:1` };
    },
    caller: ({ ip }) => from(ip),
    operation: ({ user }) => login(user.email, user.password),
    expect: throttled,
  }),
  apiCase({
    name: "starts the email's count over after a successful sign-in",
    arrange: async (surface): Promise<Fixture> => {
      const fixture = { user: await freshUser(), ip: freshIp() };
      await attempts(surface, times(ACCOUNT_FAILURES - 1, 401), fixture.user.email, WRONG, freshIp());
      await attempts(surface, [200], fixture.user.email, fixture.user.password, freshIp());
      await attempts(surface, times(ACCOUNT_FAILURES - 1, 401), fixture.user.email, WRONG, freshIp());
      return fixture;
    },
    caller: ({ ip }) => from(ip),
    // Without the reset this would be failure 2 × ACCOUNT_FAILURES - 1, past the limit.
    operation: ({ user }) => login(user.email, WRONG),
    expect: refused,
  }),
  apiCase({
    name: "does not start a tenant's count over for another tenant's user holding the same email",
    arrange: async (surface): Promise<Fixture> => {
      const victim = await freshUser();
      const other = await app.createUser({ tenantId: 'tenant-throttle-other', roles: ['member'], email: victim.email });
      await attempts(surface, times(ACCOUNT_FAILURES - 1, 401), victim.email, WRONG, freshIp(), 'tenant-throttle');
      await attempts(surface, [200], other.email, other.password, freshIp(), 'tenant-throttle-other');
      await attempts(surface, [401], victim.email, WRONG, freshIp(), 'tenant-throttle');
      verifications.mockClear();
      return { user: victim, ip: freshIp() };
    },
    caller: ({ ip }) => from(ip),
    // Past the free failures of the victim's counter: its count was never started over.
    operation: ({ user }) => login(user.email, user.password, 'tenant-throttle'),
    expect: throttled,
  }),
  apiCase({
    name: "keeps the IP's failures after a successful sign-in from it",
    arrange: async (surface): Promise<Fixture> => {
      const fixture = { user: await freshUser(), ip: freshIp() };
      for (let i = 0; i < IP_FAILURES - 1; i += 1) await attempts(surface, [401], unknownEmail(), WRONG, fixture.ip);
      await attempts(surface, [200], fixture.user.email, fixture.user.password, fixture.ip);
      await attempts(surface, [401], unknownEmail(), WRONG, fixture.ip);
      verifications.mockClear();
      return fixture;
    },
    caller: ({ ip }) => from(ip),
    operation: ({ user }) => login(user.email, user.password),
    expect: throttled,
  }),
  apiCase({
    name: 'lets one attempt through once the wait is over, then waits twice as long (refused attempts lengthen nothing)',
    arrange: async (surface): Promise<Fixture> => {
      const fixture = { user: await freshUser(), ip: freshIp() };
      await attempts(surface, [...times(ACCOUNT_FAILURES, 401), 429, 429, 429], fixture.user.email, WRONG, fixture.ip);
      // The wait is over: what the database says is what every instance goes by.
      const key = accountThrottleKey(fixture.user.email);
      const past = new Date(Date.now() - 1000);
      expect((await counters().updateOne({ _id: key }, { $set: { lockedUntil: past } })).modifiedCount).toBe(1);
      await attempts(surface, [401], fixture.user.email, WRONG, fixture.ip);
      return fixture;
    },
    caller: ({ ip }) => from(ip),
    operation: ({ user }) => login(user.email, WRONG),
    expect: {
      status: 429,
      code: 'RATE_LIMITED',
      data: (_data, _fixture, outcome) => {
        const retryAfter = Number(outcome.raw.headers.get('retry-after'));
        expect(retryAfter > FIRST_WAIT_SECONDS && retryAfter <= 2 * FIRST_WAIT_SECONDS, `Retry-After ${retryAfter}`).toBe(true);
      },
    },
  }),
]);

describe('sign-in throttling counters', () => {
  it('live in the database, keyed by the normalised email and the IP, with no password, removed by a TTL index', async () => {
    const user = await freshUser();
    const ip = freshIp();
    await attempts('rest', times(ACCOUNT_FAILURES, 401), user.email.toUpperCase(), WRONG, ip);
    const stored = await counters().find({ _id: { $in: [accountThrottleKey(user.email), ipThrottleKey(ip)] } }).toArray();
    expect(
      stored.map(({ _id, failures, lockedUntil, expireAt }) => ({ _id, failures, locked: lockedUntil > new Date(), expires: expireAt > lockedUntil })),
    ).toEqual(
      expect.arrayContaining([
        { _id: `account:${user.email.toLowerCase()}`, failures: ACCOUNT_FAILURES, locked: true, expires: true },
        { _id: `ip:${ip}`, failures: ACCOUNT_FAILURES, locked: false, expires: true },
      ]),
    );
    expect(JSON.stringify(stored).includes(WRONG)).toBe(false);
    const indexes = await counters().indexes();
    expect(indexes.some((index) => index.key.expireAt === 1 && index.expireAfterSeconds === 0)).toBe(true);
  });

  it.each(SURFACES)('let exactly the free failures through when attempts arrive at once (%s)', async (surface) => {
    const user = await freshUser();
    const ip = freshIp();
    verifications.mockClear();
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => callOperation(app, surface, login(user.email, WRONG), from(ip))));
    const statuses = outcomes.map((outcome) => outcome.status).sort();
    expect({ statuses, verified: verifications.mock.calls.length }).toEqual({
      statuses: [...times(ACCOUNT_FAILURES, 401), ...times(10 - ACCOUNT_FAILURES, 429)],
      verified: ACCOUNT_FAILURES,
    });
  });
  it.each(SURFACES)('store nothing for an attempt the IP refuses: a flood of fresh emails from one IP adds at most its free failures (%s)', async (surface) => {
    const ip = freshIp();
    const domain = `flood-${surface}.test`;
    const flood = 40;
    const outcomes = await Promise.all(Array.from({ length: flood }, (_, i) => callOperation(app, surface, login(`x${i}@${domain}`, WRONG), from(ip))));
    const stored = await counters().countDocuments({ _id: { $regex: `^account:.*@${domain.replace(/[.]/g, '[.]')}$` } });
    expect({ statuses: outcomes.map((outcome) => outcome.status).sort(), stored }).toEqual({
      statuses: [...times(IP_FAILURES, 401), ...times(flood - IP_FAILURES, 429)],
      stored: IP_FAILURES,
    });
  });
});

describe('the keys of the counters', () => {
  it('fold an email as the account lookup compares it: case, compatibility forms, every character its collation ignores', () => {
    const spellings = ['Chef@Example.TEST', 'ｃｈｅｆ@example.test', 'ch\u00ADef@exam\u200Bple.test\u0000', 'ch\u0640ef@example.test', 'c\u0591h\u05AFef@example.test\u0488'];
    expect(spellings.map((email) => accountThrottleKey(email))).toEqual(times(spellings.length, 0).map(() => 'account:chef@example.test'));
  });

  it('read an IPv4-mapped address as IPv4 and an IPv6 address as its /64, however written', () => {
    expect(
      ['::ffff:192.0.2.1', '2001:db8:0:1::1', '2001:0db8:0000:0001:ffff:ffff:ffff:ffff', '2001:db8::1:0:0:0:1', 'fe80::1%eth0', '::1'].map(ipThrottleKey),
    ).toEqual(['ip:192.0.2.1', 'ip:2001:db8:0:1::/64', 'ip:2001:db8:0:1::/64', 'ip:2001:db8:0:1::/64', 'ip:fe80:0:0:0::/64', 'ip:0:0:0:0::/64']);
  });
});
