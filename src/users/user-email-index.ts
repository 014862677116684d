import type { Logger } from '../logger.js';
import { OLD_USER_EMAIL_INDEX, UserModel } from './user.model.js';

/**
 * Every start, after the models' indexes exist (database.ts): a database made
 * before deleteUser has the unique (tenant_id, email) index without deletedAt,
 * which would keep a deleted user's email taken. The new index (with
 * deletedAt, user.model.ts) is built first, so uniqueness never lapses; then
 * the old one is dropped. Instances starting together may both try: the one
 * that finds it gone carries on. Answers whether this start dropped it.
 */
export async function migrateUserEmailIndex(logger: Logger): Promise<boolean> {
  const indexes = await UserModel.collection.indexes();
  if (!indexes.some((index) => index.name === OLD_USER_EMAIL_INDEX)) return false;
  try {
    await UserModel.collection.dropIndex(OLD_USER_EMAIL_INDEX);
  } catch (err) {
    // IndexNotFound: another instance dropped it meanwhile.
    if ((err as { codeName?: string }).codeName === 'IndexNotFound') return false;
    throw err;
  }
  logger.info({ index: OLD_USER_EMAIL_INDEX }, 'dropped the users email index that counted deleted users');
  return true;
}
