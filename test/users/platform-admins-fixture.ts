import { ObjectId } from 'mongodb';
import { RoleModel } from '../../src/users/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * The last-platform-administrator tests' cast: `first` and `second`, platform
 * administrators (no tenant, the built-in admin role: the ones the rule
 * keeps), and `rootA` and `rootB`, platform users holding every permission
 * through a custom `*` role (they act, and never count as an administrator left).
 */
export interface PlatformAdmins {
  app: TestApp;
  first: TestUser;
  second: TestUser;
  rootA: TestUser;
  rootB: TestUser;
}

export async function startPlatformAdmins(): Promise<PlatformAdmins> {
  const app = await startTestApp();
  const root = await RoleModel.create({ name: 'root', tenant_id: null, permissions: ['*'] });
  const [first, second, rootA, rootB] = await Promise.all([
    app.createUser({ tenantId: null, roles: ['admin'] }),
    app.createUser({ tenantId: null, roles: ['admin'] }),
    app.createUser({ tenantId: null, roles: [String(root._id)] }),
    app.createUser({ tenantId: null, roles: [String(root._id)] }),
  ]);
  return { app, first, second, rootA, rootB };
}

/** The user's record as stored. */
export function storedUser(app: TestApp, user: TestUser) {
  return app.db.collection('users').findOne({ _id: new ObjectId(user.id) });
}

/**
 * Both administrators active with the admin role again; `disabled` ones
 * disabled (as disableUser stores it). Answers the first one as stored, for
 * the "nothing changed" checks.
 */
export async function resetAdministrators({ app, first, second }: PlatformAdmins, disabled: readonly TestUser[] = []) {
  const users = app.db.collection('users');
  const ids = [first, second].map((user) => new ObjectId(user.id));
  await users.updateMany({ _id: { $in: ids } }, { $set: { roles: ['admin'], status: 'active', disabledAt: null, disabledReason: null, deletedAt: null } });
  for (const user of disabled) await users.updateOne({ _id: new ObjectId(user.id) }, { $set: { status: 'disabled', disabledAt: new Date() } });
  return { before: await storedUser(app, first) };
}
