import { hashPassword } from '../auth/index.js';
import type { AppConfig } from '../config.js';
import { isDuplicateKey } from '../errors/index.js';
import type { Logger } from '../logger.js';
import { UserModel } from './user.model.js';
import { backfillSearchKeys } from './user-search.js';

export interface NewAdmin {
  email: string;
  password: string;
  firstName?: string;
}

/** Creates a platform administrator: no tenant, the `admin` role (`*`). */
export async function createPlatformAdmin(admin: NewAdmin): Promise<{ id: string; email: string }> {
  const user = await UserModel.create({
    email: admin.email,
    passwordHash: await hashPassword(admin.password),
    firstName: admin.firstName ?? 'Administrator',
    roles: ['admin'],
    tenant_id: null,
  });
  return { id: user.id as string, email: user.email };
}

/**
 * First start: when the database holds no user and ADMIN_EMAIL/ADMIN_PASSWORD
 * are set, the platform administrator is created. Any later start finds a
 * user and does nothing, so it is safe to leave the variables set.
 */
export async function bootstrapAdmin(config: Pick<AppConfig, 'admin'>, logger: Logger): Promise<boolean> {
  if (!config.admin) return false;
  if (await UserModel.exists({})) return false;
  let admin;
  try {
    admin = await createPlatformAdmin(config.admin);
  } catch (err) {
    // Several instances starting at once on an empty database: one creates it, the others carry on.
    if (isDuplicateKey(err)) return false;
    throw err;
  }
  logger.info({ userId: admin.id, email: admin.email }, 'created the platform administrator');
  return true;
}

/** Every start: users stored without search keys (imports, older records) get them, so `search` finds them. */
export async function backfillUserSearchKeys(logger: Logger): Promise<number> {
  const done = await backfillSearchKeys(UserModel);
  if (done > 0) logger.info({ users: done }, 'gave users their search keys');
  return done;
}
