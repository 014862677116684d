import { expect, vi } from 'vitest';
import { SessionModel } from '../../src/auth/session.model.js';
import { apiCase, runCases } from '../support/surfaces.js';
import { app, asAnotherInstanceWouldSoon, client, op, signIn, TENANT, tokenWorks, useSessionsApp } from './session-fixtures.js';

/**
 * A refresh or an end forgets the cached state of its own session only: a
 * loop of refreshes of one session costs the other sessions' requests no
 * database read (src/auth/session.store.ts).
 */

useSessionsApp();

/** Two sessions; the bystander's state read and cached just now. */
async function twoSessions() {
  const user = await app.createUser({ tenantId: TENANT, roles: ['member'] });
  const [busy, bystander] = [await signIn(user), await signIn(user)];
  asAnotherInstanceWouldSoon();
  expect(await tokenWorks(bystander.accessToken)).toBe(true);
  return { busy, bystander, cachedAt: Date.now() };
}

/** How many reads of the bystander's state a request with its token makes now. */
async function bystanderReads(fixture: Awaited<ReturnType<typeof twoSessions>>): Promise<number | null> {
  const reads = vi.spyOn(SessionModel, 'findById');
  try {
    expect(await tokenWorks(fixture.bystander.accessToken)).toBe(true);
    // Past the cache's second the state is read anyway: nothing to tell (a very slow machine).
    if (Date.now() - fixture.cachedAt >= 900) return null;
    return reads.mock.calls.filter(([id]) => String(id) === fixture.bystander.sid).length;
  } finally {
    reads.mockRestore();
  }
}

const readsNothing = async (fixture: Awaited<ReturnType<typeof twoSessions>>) => {
  const reads = await bystanderReads(fixture);
  if (reads !== null) expect(reads).toBe(0);
};

runCases('writes to one session leave the cached state of the others', client, [
  apiCase({
    name: "a refresh of another session: the bystander's next request reads nothing",
    arrange: twoSessions,
    caller: () => ({}),
    operation: ({ busy }) => op.refresh(busy.refreshToken),
    expect: { status: 200, db: readsNothing },
  }),
  apiCase({
    name: "a logout of another session: the bystander's next request reads nothing",
    arrange: twoSessions,
    caller: ({ busy }) => ({ token: busy.accessToken }),
    operation: () => op.logout(),
    expect: { status: 200, db: readsNothing },
  }),
]);
