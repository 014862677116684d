import { ObjectId } from 'mongodb';
import { afterEach, expect, vi } from 'vitest';
import { SessionModel } from '../../src/auth/session.model.js';
import { UserModel } from '../../src/users/index.js';
import { apiCase, runCases } from '../support/surfaces.js';
import { app, client, op, refreshOverRest, signIn, TENANT, tokenWorks, useSessionsApp } from './session-fixtures.js';

/**
 * changePassword racing an administrator: an end of every session or a
 * disable landing while the change is in flight wins (the change is 401 and
 * changes nothing), and a caller's session ended between the password write
 * and its move to the new version is 401 too, never a fresh token.
 */

useSessionsApp();
afterEach(() => vi.restoreAllMocks());

const NEW_PASSWORD = 'N3w-passw0rd!';
const users = () => app.db.collection('users');
const userRecord = (id: string) => users().findOne({ _id: new ObjectId(id) });

/** Runs `act` just before the query the model method makes for a matching update executes. */
function before(model: typeof UserModel | typeof SessionModel, method: 'findOneAndUpdate' | 'updateOne', matches: (update: Record<string, any>) => boolean, act: () => Promise<unknown>) {
  const original = (model as any)[method].bind(model);
  vi.spyOn(model as any, method).mockImplementation((...args: any[]) => {
    const query = original(...args);
    if (!matches(args[1] ?? {})) return query;
    const exec = query.exec.bind(query);
    query.exec = async () => {
      await act();
      return exec();
    };
    return query;
  });
}

const passwordWrite = (update: Record<string, any>) => update.$set?.passwordHash !== undefined;
const sessionMove = (update: Record<string, any>) => update.$set?.tokenVersion !== undefined;

async function signedInMember() {
  const user = await app.createUser({ tenantId: TENANT, roles: ['member'] });
  const mine = await signIn(user);
  return { user, mine, hashBefore: (await userRecord(user.id))!.passwordHash as string };
}

const lostRace = {
  status: 401,
  code: 'UNAUTHENTICATED',
  data: (_data: unknown, _fixture: unknown, outcome: { message?: string }) => expect(outcome.message).toBe('Session ended while the password was being changed: nothing was changed'),
};

runCases('changePassword racing an administrator', client, [
  apiCase({
    name: 'every session of the user ended while the change is in flight: 401, the password unchanged, the session stays ended',
    arrange: async () => {
      const fixture = await signedInMember();
      before(UserModel, 'findOneAndUpdate', passwordWrite, () => users().updateOne({ _id: new ObjectId(fixture.user.id) }, { $inc: { tokenVersion: 1 } }));
      return fixture;
    },
    caller: ({ mine }) => ({ token: mine.accessToken }),
    operation: ({ user }) => op.changePassword({ currentPassword: user.password, newPassword: NEW_PASSWORD }),
    expect: {
      ...lostRace,
      db: async ({ user, mine, hashBefore }) => {
        vi.restoreAllMocks();
        expect((await userRecord(user.id))!.passwordHash).toBe(hashBefore);
        expect((await refreshOverRest(mine.refreshToken)).status).toBe(401);
      },
    },
  }),
  apiCase({
    name: 'the user disabled while the change is in flight: 401, the password unchanged',
    arrange: async () => {
      const fixture = await signedInMember();
      before(UserModel, 'findOneAndUpdate', passwordWrite, () => users().updateOne({ _id: new ObjectId(fixture.user.id) }, { $set: { status: 'disabled' } }));
      return fixture;
    },
    caller: ({ mine }) => ({ token: mine.accessToken }),
    operation: ({ user }) => op.changePassword({ currentPassword: user.password, newPassword: NEW_PASSWORD }),
    expect: {
      ...lostRace,
      db: async ({ user, hashBefore }) => {
        vi.restoreAllMocks();
        expect((await userRecord(user.id))!.passwordHash).toBe(hashBefore);
      },
    },
  }),
  apiCase({
    name: "the caller's session ended between the password write and its move: 401, no access token handed out",
    arrange: async () => {
      const fixture = await signedInMember();
      before(SessionModel, 'updateOne', sessionMove, () => app.db.collection('sessions').updateOne({ _id: new ObjectId(fixture.mine.sid) }, { $set: { endedAt: new Date(), endReason: 'ended' } }));
      return fixture;
    },
    caller: ({ mine }) => ({ token: mine.accessToken }),
    operation: ({ user }) => op.changePassword({ currentPassword: user.password, newPassword: NEW_PASSWORD }),
    expect: {
      status: 401,
      code: 'UNAUTHENTICATED',
      data: (_data, _fixture, outcome) => expect(outcome.message).toBe('Session ended while the password was being changed: the password is changed, sign in again'),
      db: async ({ mine }) => {
        vi.restoreAllMocks();
        expect(await tokenWorks(mine.accessToken)).toBe(false);
        expect((await refreshOverRest(mine.refreshToken)).status).toBe(401);
      },
    },
  }),
]);
